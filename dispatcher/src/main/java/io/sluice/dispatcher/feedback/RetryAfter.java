package io.sluice.dispatcher.feedback;

import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.OptionalLong;

/**
 * Reads an HTTP {@code Retry-After} header (RFC 9110, section 10.2.3): either a number of seconds
 * ({@code 120}) or an HTTP date ({@code Wed, 21 Oct 2015 07:28:00 GMT}). Pure: "now" is passed in.
 */
public final class RetryAfter {
  /** Longest wait honoured; a provider asking for more is capped here (one day). */
  public static final long MAX_MILLIS = 86_400_000L;

  private RetryAfter() {}

  /**
   * The wait the header asks for, in milliseconds from {@code now}, never negative; empty when the
   * header is absent or unreadable (the caller then falls back to its own backoff).
   */
  public static OptionalLong millis(String header, Instant now) {
    return millis(header, now, MAX_MILLIS);
  }

  /** The same, at most {@code maxMillis} (the provider's {@code maxRetryAfter}). */
  public static OptionalLong millis(String header, Instant now, long maxMillis) {
    OptionalLong asked = asked(header, now);
    return asked.isPresent() ? OptionalLong.of(Math.min(Math.max(0, maxMillis), asked.getAsLong()))
        : asked;
  }

  /** The wait the header asks for, at most {@link #MAX_MILLIS}. */
  public static OptionalLong asked(String header, Instant now) {
    if (header == null || header.isBlank()) {
      return OptionalLong.empty();
    }
    String value = header.trim();
    if (value.chars().allMatch(Character::isDigit)) {
      if (value.length() > 9) {
        return OptionalLong.of(MAX_MILLIS);
      }
      return OptionalLong.of(Math.min(MAX_MILLIS, Long.parseLong(value) * 1000));
    }
    try {
      Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      long wait = at.toEpochMilli() - now.toEpochMilli();
      return OptionalLong.of(Math.max(0, Math.min(MAX_MILLIS, wait)));
    } catch (DateTimeParseException e) {
      return OptionalLong.empty();
    }
  }
}
