package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  private final Instant now = Instant.parse("2015-10-21T07:27:00Z");

  @Test
  @DisplayName("a number of seconds")
  void seconds() {
    assertEquals(OptionalLong.of(2_000), RetryAfter.millis("2", now));
    assertEquals(OptionalLong.of(0), RetryAfter.millis("0", now));
    assertEquals(OptionalLong.of(120_000), RetryAfter.millis(" 120 ", now));
  }

  @Test
  @DisplayName("an HTTP date, relative to now")
  void httpDate() {
    assertEquals(OptionalLong.of(60_000),
        RetryAfter.millis("Wed, 21 Oct 2015 07:28:00 GMT", now));
  }

  @Test
  @DisplayName("a date in the past means: now")
  void pastDate() {
    assertEquals(OptionalLong.of(0), RetryAfter.millis("Wed, 21 Oct 2015 07:00:00 GMT", now));
  }

  @Test
  @DisplayName("absent or unreadable headers give nothing, so the caller uses its backoff")
  void unreadable() {
    assertEquals(OptionalLong.empty(), RetryAfter.millis(null, now));
    assertEquals(OptionalLong.empty(), RetryAfter.millis("", now));
    assertEquals(OptionalLong.empty(), RetryAfter.millis("soon", now));
    assertEquals(OptionalLong.empty(), RetryAfter.millis("-5", now));
    assertEquals(OptionalLong.empty(), RetryAfter.millis("1.5", now));
  }

  @Test
  @DisplayName("absurd waits are capped at a day")
  void capped() {
    assertEquals(OptionalLong.of(RetryAfter.MAX_MILLIS), RetryAfter.millis("99999999999", now));
    assertEquals(OptionalLong.of(RetryAfter.MAX_MILLIS), RetryAfter.millis("900000", now));
  }
}
