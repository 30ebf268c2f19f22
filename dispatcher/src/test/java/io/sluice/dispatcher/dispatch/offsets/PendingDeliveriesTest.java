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
    pending.add(P0, D5);
    pending.add(P1, D9);
    pending.add(P0, D6);
    assertEquals(Map.of(P0, List.of(D5, D6), P1, List.of(D9)), pending.takeIfDue(1_000));
    assertTrue(pending.takeIfDue(2_000).isEmpty(), "taken: nothing is written twice");
  }

  @Test
  void shouldTakeNoBatchSoonerThanOneRoundAfterTheLast() {
    pending.add(P0, D5);
    pending.takeIfDue(1_000);
    pending.add(P0, D6);
    assertTrue(pending.takeIfDue(1_099).isEmpty(), "99 ms after the last batch");
    assertEquals(Map.of(P0, List.of(D6)), pending.takeIfDue(1_100));
  }

  @Test
  void shouldNotStartARoundWithoutDeliveries() {
    assertTrue(pending.takeIfDue(1_000).isEmpty());
    pending.add(P0, D5);
    assertEquals(Map.of(P0, List.of(D5)), pending.takeIfDue(1_050),
        "nothing was taken at 1 000, so no round started then: it goes at once");
  }

  @Test
  void shouldTakeEverythingAtAHandOverWhateverTheRound() {
    pending.add(P0, D5);
    pending.takeIfDue(1_000);
    pending.add(P1, D9);
    assertEquals(Map.of(P1, List.of(D9)), pending.takeNow(1_001),
        "the next owner must find it in the log");
  }
}
