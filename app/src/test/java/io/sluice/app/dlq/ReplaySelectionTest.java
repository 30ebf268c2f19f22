package io.sluice.app.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.dlq.ReplaySelection.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import java.time.Duration;
import java.util.Optional;

class ReplaySelectionTest {
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
  private static final DeadLetterQuery ALL_4XX =
      DeadLetterQuery.parse("non_retryable_4xx", null, null, null, 100);

  private static DeadLetterEntry letter(long offset, String reason) {
    return Letters.letter(offset, reason, "e" + offset, "acme", "payments-api", null, NOW);
  }

  @Test
  void shouldSendEveryMatchingDeadLetterInTheOrderRead() {
    ReplaySelection s = new ReplaySelection(ALL_4XX, Set.of(), NOW);
    s.offer(letter(0, "non_retryable_4xx"));
    s.offer(letter(1, "max_attempts"));
    s.offer(letter(2, "non_retryable_4xx"));

    assertEquals(List.of("sluice.dlq-0@0", "sluice.dlq-0@2"),
        s.toSend().stream().map(DeadLetterEntry::at).toList());
    assertEquals(Map.of(), s.skipped(), "a dead letter the filters leave out is not 'skipped'");
  }

  @Test
  void shouldSendNothingTwiceWhatTheLedgerRecordsAsReplayed() {
    ReplaySelection s = new ReplaySelection(ALL_4XX, Set.of("sluice.dlq-0@0"), NOW);
    s.offer(letter(0, "non_retryable_4xx"));
    s.offer(letter(1, "non_retryable_4xx"));

    assertEquals(List.of("sluice.dlq-0@1"), s.toSend().stream().map(DeadLetterEntry::at).toList());
    assertEquals(Map.of(Verdict.ALREADY_REPLAYED, 1L), s.skipped());
  }

  @Test
  void shouldNotSendADeadLetterWhoseValueWasLeftOut() {
    DeadLetterEntry noValue = DeadLetterEntry.of(Letters.DLQ, 0, 5, NOW.toEpochMilli(),
        "acme".getBytes(StandardCharsets.UTF_8), null, Letters.headers("non_retryable_4xx", "e5"));

    assertEquals(Verdict.NO_VALUE, ReplaySelection.verdict(noValue, Set.of(), NOW));
  }

  @Test
  void shouldNotSendAnEventWhoseDeadlineHasPassed() {
    DeadLetterEntry due = Letters.letter(0, "non_retryable_4xx", "e0", "acme", "p",
        "2026-11-26T12:00:00Z", NOW);
    DeadLetterEntry later = Letters.letter(1, "non_retryable_4xx", "e1", "acme", "p",
        "2026-11-26T13:00:00+01:00", NOW.minusSeconds(1));

    assertEquals(Verdict.DEADLINE_PASSED, ReplaySelection.verdict(due, Set.of(), NOW),
        "a deadline equal to now is past: the gate would expire it");
    assertEquals(Verdict.DEADLINE_PASSED, ReplaySelection.verdict(later, Set.of(), NOW),
        "13:00+01:00 is 12:00Z");
    assertEquals(Verdict.SEND, ReplaySelection.verdict(due, Set.of(), NOW.minusMillis(1)));
  }

  @Test
  void shouldNotSendARecordSluiceDidNotDeadLetter() {
    DeadLetterEntry foreign = DeadLetterEntry.of(Letters.DLQ, 0, 9, NOW.toEpochMilli(), null,
        "{}".getBytes(StandardCharsets.UTF_8), new RecordHeaders());

    assertEquals(Verdict.NOT_A_DEAD_LETTER, ReplaySelection.verdict(foreign, Set.of(), NOW));
    assertFalse(DeadLetterQuery.parse("invalid", null, null, null, 1).matches(foreign),
        "it has no reason to match");
  }

  @Test
  void shouldStopAtTheLimitCountingOnlyTheEventsSent() {
    DeadLetterQuery two = DeadLetterQuery.parse(null, null, null, null, 2);
    ReplaySelection s = new ReplaySelection(two, Set.of("sluice.dlq-0@0"), NOW);

    assertTrue(s.offer(letter(0, "max_attempts")), "already replayed: not counted");
    assertTrue(s.offer(letter(1, "max_attempts")));
    assertFalse(s.offer(letter(2, "max_attempts")), "the second send reaches the limit");
    assertFalse(s.offer(letter(3, "max_attempts")));

    assertEquals(2, s.toSend().size());
    assertTrue(s.full());
  }

  @Test
  void shouldStopAtTheByteBudgetTakingTheDeadLetterThatCrossesIt() {
    DeadLetterEntry first = letter(0, "max_attempts");
    ReplaySelection s = new ReplaySelection(DeadLetterQuery.parse(null, null, null, null, 100),
        Set.of(), NOW, first.value().length + 1L);

    assertTrue(s.offer(first));
    assertFalse(s.offer(letter(1, "max_attempts")));
    assertFalse(s.offer(letter(2, "max_attempts")));

    assertEquals(2, s.toSend().size(), "at least one always goes, and the budget is then spent");
  }

  /** A dead letter of event {@code id} at {@code offset}, the replay at {@code replayOf} died again (null: none). */
  private static DeadLetterEntry letterOf(long offset, String id, String replayOf) {
    RecordHeaders h = (RecordHeaders) Letters.headers("non_retryable_4xx", id);
    if (replayOf != null) {
      h.add(ReplayMark.HEADER, replayOf.getBytes(StandardCharsets.UTF_8));
    }
    return DeadLetterEntry.of(Letters.DLQ, 0, offset, NOW.toEpochMilli(),
        "acme".getBytes(StandardCharsets.UTF_8),
        Letters.event(id, "acme", "payments-api", null).getBytes(StandardCharsets.UTF_8), h);
  }

  private static List<String> sent(ReplaySelection s) {
    return s.toSend().stream().map(DeadLetterEntry::at).toList();
  }

  @Test
  void shouldReplayOnceAnEventWhoseDeadLetterWasWrittenTwice() {
    // One attempt's dead letter written twice (a settlement resent after a produce timeout, a
    // sweeper's copy): two positions, one event, one death. Both replayed, the provider is
    // called twice for one event (issue 34, 9).
    ReplaySelection s = new ReplaySelection(ALL_4XX, Set.of(), NOW);
    s.offer(letterOf(3, "e-7", null));
    s.offer(letterOf(9, "e-7", null));

    assertEquals(List.of("sluice.dlq-0@3"), sent(s));
    assertEquals(Map.of(Verdict.EVENT_REPLAYED, 1L), s.skipped());
  }

  @Test
  void shouldNotReplayTheSecondCopyOfADeadLetterWhoseFirstALaterRunReplayed() {
    ReplayedEvents ledger = ReplayedEvents.none();
    ledger.replayed("sluice.dlq-0@3", new ReplayedEvents.Death("e-7", null));
    ReplaySelection s = new ReplaySelection(ALL_4XX, ledger, NOW);
    s.offer(letterOf(9, "e-7", null));

    assertEquals(List.of(), sent(s));
    assertEquals(Map.of(Verdict.EVENT_REPLAYED, 1L), s.skipped());
  }

  @Test
  void shouldReplayAgainAReplayedEventThatDiedAgain() {
    // The replay of @3 died again: a new death, its dead letter marked with the replay it came
    // from. It is replayable once, and only once however many copies it has.
    ReplayedEvents ledger = ReplayedEvents.none();
    ledger.replayed("sluice.dlq-0@3", new ReplayedEvents.Death("e-7", null));
    ReplaySelection s = new ReplaySelection(ALL_4XX, ledger, NOW);
    s.offer(letterOf(12, "e-7", "sluice.dlq-0@3"));
    s.offer(letterOf(13, "e-7", "sluice.dlq-0@3"));

    assertEquals(List.of("sluice.dlq-0@12"), sent(s));
  }

  @Test
  void shouldForgetTheDeathATombstoneForgets() {
    ReplayedEvents ledger = ReplayedEvents.none();
    ledger.replayed("sluice.dlq-0@3", new ReplayedEvents.Death("e-7", null));
    ledger.forgotten("sluice.dlq-0@3");
    ReplaySelection s = new ReplaySelection(ALL_4XX, ledger, NOW);
    s.offer(letterOf(9, "e-7", null));

    assertEquals(List.of("sluice.dlq-0@9"), sent(s));
  }

  @Test
  void shouldNotReplayAnEventThatOutcomesShowDelivered() {
    // A duplicate of the event was delivered beside the one that died: a replay would call the
    // provider again for an event it took.
    ReplaySelection s = new ReplaySelection(ALL_4XX, ReplayedEvents.none(), NOW);
    s.offer(letterOf(3, "e-7", null));
    s.offer(letterOf(4, "e-8", null));
    assertEquals(Set.of("e-7", "e-8"), s.eventIds());

    s.delivered(Set.of("e-7"));

    assertEquals(List.of("sluice.dlq-0@4"), sent(s));
    assertEquals(List.of("sluice.dlq-0@3"), s.deliveredLetters().stream().map(DeadLetterEntry::at).toList());
    assertEquals(Map.of(Verdict.DELIVERED, 1L), s.skipped());
  }

  @Test
  void shouldReadOutcomesFromTheEarliestFirstSightOfTheSelectionLessTheSkew() {
    ReplaySelection s = new ReplaySelection(ALL_4XX, ReplayedEvents.none(), NOW);
    assertEquals(Optional.empty(), s.outcomesFrom(Duration.ofMinutes(5)), "nothing selected, nothing to read");
    s.offer(letterOf(3, "e-7", null)); // first seen at 1,000 ms (Letters)

    assertEquals(Optional.of(Instant.ofEpochMilli(1_000).minusMillis(500)),
        s.outcomesFrom(Duration.ofMillis(500)));
    assertEquals(Optional.of(Instant.EPOCH), s.outcomesFrom(Duration.ofMinutes(5)),
        "never before the epoch: Kafka refuses to look up a negative time (DeadLetterReplayIT)");
  }

  @Test
  void shouldReadTheDeathALedgerNoteNames() {
    assertEquals(new ReplayedEvents.Death("e-7", "sluice.dlq-0@3"), ReplayLedger.death(
        "{\"eventId\":\"e-7\",\"replayOf\":\"sluice.dlq-0@3\",\"replayedAt\":1,\"run\":\"r\"}".getBytes(StandardCharsets.UTF_8)));
    assertEquals(new ReplayedEvents.Death("e-7", null), ReplayLedger.death(
        "{\"eventId\":\"e-7\",\"replayedAt\":1,\"run\":\"r\"}".getBytes(StandardCharsets.UTF_8)),
        "a note written before deaths were recorded names the original's");
    assertEquals(null, ReplayLedger.death("not json".getBytes(StandardCharsets.UTF_8)));
  }
}
