package io.sluice.dispatcher.dispatch.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A new owner's records delivered by their previous owner, as a timeline in seconds: each waits
 * for the log to say settled, or for its grace (31 s here) to end, whichever comes first; the log
 * is read again every quarter of a second, one read at a time per partition.
 */
class SettlementGraceTest {
  private static final TopicPartition P0 = new TopicPartition("t.ready", 0);
  private static final TopicPartition P1 = new TopicPartition("t.ready", 1);
  private static final long SECOND = 1_000_000_000L;

  private final SettlementGrace<String> grace = new SettlementGrace<>(31 * SECOND, SECOND / 4);

  @Test
  void shouldLetARecordGoWithoutAWriteOnceTheLogSaysItsOutcomeWasAcknowledged() {
    grace.hold(P0, 7, "e7", 0);
    grace.hold(P0, 9, "e9", 0);

    assertEquals(Map.of(P0, new SettlementGrace.Range(7, 9)), grace.toRead(0),
        "the held offsets of the partition, read at once");
    assertEquals(List.of(), grace.answered(P0, Set.of()), "not settled yet");
    assertEquals(Map.of(), grace.toRead(SECOND / 8), "read again a quarter second later, not before");
    assertEquals(Map.of(P0, new SettlementGrace.Range(7, 9)), grace.toRead(SECOND / 4));
    assertEquals(List.of("e9"), grace.answered(P0, Set.of(9L, 3L)),
        "e9's outcome acknowledged: settled without a write; 3 is not held");
    assertEquals(Map.of(P0, new SettlementGrace.Range(7, 7)), grace.toRead(SECOND / 2));
    assertEquals(1, grace.size());
  }

  @Test
  void shouldHaveTheNewOwnerWriteTheOutcomeOnceTheGraceIsOver() {
    grace.hold(P0, 7, "e7", 0);
    grace.hold(P1, 2, "e2", 10 * SECOND);

    assertEquals(List.of(), grace.due(31 * SECOND - 1), "the old owner may still write it");
    assertEquals(List.of("e7"), grace.due(31 * SECOND), "e7's grace is over: written here");
    assertEquals(List.of(), grace.due(40 * SECOND), "e2 held 10 s later, waits until 41 s");
    assertEquals(List.of("e2"), grace.due(41 * SECOND));
    assertEquals(0, grace.size());
    assertEquals(Map.of(), grace.toRead(42 * SECOND), "nothing held, nothing read");
  }

  @Test
  void shouldReadEachPartitionOnceAtATime() {
    grace.hold(P0, 7, "e7", 0);
    grace.hold(P1, 2, "e2", 0);

    assertEquals(Set.of(P0, P1), grace.toRead(0).keySet());
    grace.answered(P1, Set.of());
    assertEquals(Set.of(P1), grace.toRead(SECOND).keySet(),
        "P0's read has not answered (Redis slow): not asked again meanwhile");
    grace.answered(P0, Set.of());
    assertEquals(Set.of(P0), grace.toRead(SECOND).keySet());
  }

  @Test
  void shouldLetGoWhatAPartitionThatMovedHeld() {
    grace.hold(P0, 7, "e7", 0);
    grace.hold(P1, 2, "e2", 0);
    grace.toRead(0);

    assertEquals(List.of("e7"), grace.forget(List.of(P0)), "its next owner reads it again");
    assertEquals(List.of(), grace.answered(P0, Set.of(7L)), "a late answer settles nothing");
    assertEquals(List.of("e2"), grace.due(31 * SECOND));
  }

  @Test
  void shouldTakeALaterAssignmentsHoldOfAnOffsetInsteadOfAnEarlierOnes() {
    grace.hold(P0, 7, "first read", 0);
    grace.hold(P0, 7, "read again", 20 * SECOND);

    assertEquals(List.of(), grace.due(31 * SECOND), "its grace counts from the later hold");
    assertEquals(List.of("read again"), grace.due(51 * SECOND));
  }

  @Test
  void shouldRefuseANegativeGraceOrNoRecheckInterval() {
    assertThrows(IllegalArgumentException.class, () -> new SettlementGrace<>(-1, SECOND));
    assertThrows(IllegalArgumentException.class, () -> new SettlementGrace<>(SECOND, 0));
  }
}
