package io.sluice.schemas.validation;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Reads a WorkEvent deadline: the subset of RFC 3339 that work-event.schema.json allows.
 *
 * <p>{@code YYYY-MM-DDTHH:MM:SS}, an optional fraction of one to nine digits, then {@code Z} or
 * {@code ±HH:MM} (at most ±18:00, as {@link ZoneOffset} allows; {@code -00:00}, RFC 3339's
 * "offset unknown", names no instant). Upper-case T and Z only, no leap second, the calendar
 * checked strictly (no February 30).
 *
 * <p>Why by hand: {@code DateTimeFormatter} costs about a microsecond and a half per parse, more
 * than the whole rest of an event's validation; this costs a small fraction of that.
 * {@code EventValidatorAgreementTest} holds it to the schema's verdict on the edge cases.
 */
final class DeadlineText {
  private DeadlineText() {}

  /** The instant, or null when the text is not a deadline of the allowed form. */
  static Instant parse(String s) {
    int n = s.length();
    if (n < 20 || !digits(s, 0, 4) || s.charAt(4) != '-' || !digits(s, 5, 7)
        || s.charAt(7) != '-' || !digits(s, 8, 10) || s.charAt(10) != 'T' || !digits(s, 11, 13)
        || s.charAt(13) != ':' || !digits(s, 14, 16) || s.charAt(16) != ':'
        || !digits(s, 17, 19)) {
      return null;
    }
    int i = 19;
    int nanos = 0;
    if (s.charAt(i) == '.') {
      int start = ++i;
      while (i < n && isDigit(s.charAt(i))) {
        i++;
      }
      int count = i - start;
      if (count < 1 || count > 9) {
        return null;
      }
      nanos = number(s, start, i);
      for (int k = count; k < 9; k++) {
        nanos *= 10;
      }
    }
    Integer offsetSeconds = offset(s, i);
    if (offsetSeconds == null) {
      return null;
    }
    try {
      return LocalDateTime.of(number(s, 0, 4), number(s, 5, 7), number(s, 8, 10),
              number(s, 11, 13), number(s, 14, 16), number(s, 17, 19), nanos)
          .toInstant(ZoneOffset.ofTotalSeconds(offsetSeconds));
    } catch (DateTimeException e) {
      return null;
    }
  }

  /** {@code Z} or {@code ±HH:MM} ending the text at {@code i}, in seconds; null otherwise. */
  private static Integer offset(String s, int i) {
    int n = s.length();
    if (i == n - 1 && s.charAt(i) == 'Z') {
      return 0;
    }
    char sign = i < n ? s.charAt(i) : ' ';
    if (n - i != 6 || sign != '+' && sign != '-' || !digits(s, i + 1, i + 3)
        || s.charAt(i + 3) != ':' || !digits(s, i + 4, i + 6)) {
      return null;
    }
    int hours = number(s, i + 1, i + 3);
    int minutes = number(s, i + 4, i + 6);
    int total = hours * 3600 + minutes * 60;
    if (minutes > 59 || total > 18 * 3600 || sign == '-' && total == 0) {
      return null;
    }
    return sign == '-' ? -total : total;
  }

  private static boolean digits(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (!isDigit(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int number(String s, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      value = value * 10 + (s.charAt(i) - '0');
    }
    return value;
  }
}
