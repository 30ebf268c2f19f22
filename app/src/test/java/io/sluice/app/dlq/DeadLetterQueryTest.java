package io.sluice.app.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeadLetterQueryTest {
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  @Test
  void shouldReadSinceAsSecondsMinutesHoursOrDaysBackFromNow() {
    assertEquals(Optional.of(NOW.minusSeconds(90)),
        DeadLetterQuery.parse(null, null, null, "90s", 100).from(NOW));
    assertEquals(Duration.ofMinutes(30), DeadLetterQuery.parse(null, null, null, "30m", 1).since());
    assertEquals(Duration.ofHours(1), DeadLetterQuery.parse(null, null, null, "1h", 1).since());
    assertEquals(Duration.ofDays(7), DeadLetterQuery.parse(null, null, null, "7d", 1).since());
    assertEquals(Optional.empty(), DeadLetterQuery.parse(null, null, null, null, 1).from(NOW));
  }

  @Test
  void shouldRefuseEveryBadFilterAtOnceNamingEach() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DeadLetterQuery.parse("non_retryable_400", "pay ments", "acme", "1 hour", 0));
    String m = e.getMessage();
    assertTrue(m.contains("--reason: expected one of rate_limited,"), m);
    assertTrue(m.contains("non_retryable_4xx"), m);
    assertTrue(m.contains("--provider: expected 1 to 128"), m);
    assertTrue(m.contains("--since: expected a duration like 90s"), m);
    assertTrue(m.contains("--limit: expected 1 to 10000; got 0"), m);
    assertFalse(m.contains("--tenant"), m);
  }

  @Test
  void shouldBoundTheLimitTheSinceAndTheIds() {
    assertEquals(10_000, DeadLetterQuery.parse(null, null, null, null, 10_000).limit());
    assertThrows(IllegalArgumentException.class,
        () -> DeadLetterQuery.parse(null, null, null, null, 10_001));
    assertEquals(Duration.ofDays(400), DeadLetterQuery.parse(null, null, null, "400d", 1).since());
    assertThrows(IllegalArgumentException.class,
        () -> DeadLetterQuery.parse(null, null, null, "401d", 1));
    // Eight digits would overflow nothing, but are refused by shape before any arithmetic.
    assertThrows(IllegalArgumentException.class,
        () -> DeadLetterQuery.parse(null, null, null, "99999999999999999999h", 1));
    assertThrows(IllegalArgumentException.class,
        () -> DeadLetterQuery.parse(null, null, null, "0s", 1));
    assertThrows(IllegalArgumentException.class,
        () -> DeadLetterQuery.parse(null, null, "t".repeat(129), null, 1));
  }

  @Test
  void shouldNotEchoControlCharactersOrLongTextInItsErrors() {
    String hostile = "\u001b[2J" + "x".repeat(10_000);
    String m = assertThrows(IllegalArgumentException.class,
        () -> DeadLetterQuery.parse(null, null, hostile, null, 1)).getMessage();
    assertFalse(m.contains("\u001b"), m);
    assertTrue(m.length() < 200, "the error stays short: " + m.length());
  }

  @Test
  void shouldMatchOnReasonProviderAndTenantTogether() {
    DeadLetterEntry e = Letters.letter(0, "non_retryable_4xx", "e1", "acme", "payments-api", null,
        NOW);
    assertTrue(DeadLetterQuery.parse(null, null, null, null, 1).matches(e));
    assertTrue(DeadLetterQuery.parse("non_retryable_4xx", "payments-api", "acme", null, 1)
        .matches(e));
    assertFalse(DeadLetterQuery.parse("max_attempts", null, null, null, 1).matches(e));
    assertFalse(DeadLetterQuery.parse(null, "sms-api", null, null, 1).matches(e));
    assertFalse(DeadLetterQuery.parse(null, null, "globex", null, 1).matches(e));
  }
}
