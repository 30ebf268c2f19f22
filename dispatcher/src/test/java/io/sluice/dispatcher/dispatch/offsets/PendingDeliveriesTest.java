package io.sluice.dispatcher.dispatch.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Deliveries are written to the delivered log in batches: one write per partition per round. */
class PendingDeliveriesTest {
  private static final TopicPartition P0 = new TopicPartition("ready", 0);
  private static final TopicPartition P1 = new TopicPartition("ready", 1);
  private static final DeliveredLog.Delivered D5 = new DeliveredLog.Delivered(5, 200, 1);
  private static final DeliveredLog.Delivered D6 = new DeliveredLog.Delivered(6, 204, 2);
  private static final DeliveredLog.Delivered D9 = new DeliveredLog.Delivered(9, 200, 1);

  private final PendingDeliveries pending = new PendingDeliveries(100);

  @Test
  void shouldBatchEachRoundsDeliveriesByPartition() {
    pending.add(P0, D5, 0);
    pending.add(P1, D9, 0);
    pending.add(P0, D6, 0);
    assertEquals(Map.of(P0, List.of(D5, D6), P1, List.of(D9)), pending.takeIfDue(1_000));
    assertTrue(pending.takeIfDue(2_000).isEmpty(), "taken: nothing is written twice");
  }

  @Test
  void shouldTakeNoBatchSoonerThanOneRoundAfterTheLast() {
    pending.add(P0, D5, 0);
    pending.takeIfDue(1_000);
    pending.add(P0, D6, 0);
    assertTrue(pending.takeIfDue(1_099).isEmpty(), "99 ms after the last batch");
    assertEquals(Map.of(P0, List.of(D6)), pending.takeIfDue(1_100));
  }

  @Test
  void shouldNotStartARoundWithoutDeliveries() {
    assertTrue(pending.takeIfDue(1_000).isEmpty());
    pending.add(P0, D5, 0);
    assertEquals(Map.of(P0, List.of(D5)), pending.takeIfDue(1_050),
        "nothing was taken at 1 000, so no round started then: it goes at once");
  }

  @Test
  void shouldLeaveTheDeliveriesYoungerThanTheAgeAskedForToALaterRound() {
    pending.add(P0, D5, 900);
    pending.add(P1, D9, 950);
    pending.add(P0, D6, 1_000);
    assertEquals(Map.of(P0, List.of(D5), P1, List.of(D9)), pending.takeIfDue(1_050, 100),
        "added at or before 950: a round old");
    assertEquals(Map.of(P0, List.of(D6)), pending.takeIfDue(1_150, 100));
  }

  @Test
  void shouldStartNoRoundWhenEveryDeliveryIsTooYoung() {
    pending.add(P0, D5, 1_000);
    assertTrue(pending.takeIfDue(1_050, 100).isEmpty());
    assertEquals(Map.of(P0, List.of(D5)), pending.takeIfDue(1_100, 100),
        "no round started at 1 050: it goes as soon as it is old enough");
  }

  @Test
  void shouldTakeEverythingAtAHandOverWhateverTheRound() {
    pending.add(P0, D5, 0);
    pending.takeIfDue(1_000);
    pending.add(P1, D9, 0);
    assertEquals(Map.of(P1, List.of(D9)), pending.takeNow(1_001),
        "the next owner must find it in the log");
  }
}
