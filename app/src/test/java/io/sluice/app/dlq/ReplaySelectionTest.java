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
}
