package io.sluice.dispatcher.feedback;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the reset of an {@code X-RateLimit-Reset*} field, which providers spell three ways:
 *
 * <ul>
 *   <li>epoch seconds: {@code 1732400000} (GitHub). Any number from 10^9 (September 2001) up is
 *       read as an instant: no limit resets 31 years from now, and no instant is before 2001;</li>
 *   <li>epoch milliseconds: 10^12 and up, the same reasoning;</li>
 *   <li>delta seconds: {@code 30}, {@code 1.5};</li>
 *   <li>a Go duration: {@code 6m0s}, {@code 1.5s}, {@code 20ms}, {@code 1h2m3.5s}, {@code 300us}
 *       (OpenAI).</li>
 * </ul>
 *
 * Pure: "now" is passed in. An instant in the past is a reset now (0).
 */
final class ResetTime {
  private static final Pattern GO_PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(h|ms|m|s|us|µs|ns)");
  private static final Pattern GO = Pattern.compile("(?:\\d+(?:\\.\\d+)?(?:h|ms|m|s|us|µs|ns))+");
  private static final Pattern NUMBER = Pattern.compile("\\d{1,18}(?:\\.\\d{1,9})?");
  private static final long EPOCH_SECONDS_FROM = 1_000_000_000L;
  private static final long EPOCH_MILLIS_FROM = 1_000_000_000_000L;

  private ResetTime() {}

  /** Milliseconds from {@code nowMillis} until the reset, capped at a day; empty if unreadable. */
  public static OptionalLong millis(String value, long nowMillis) {
    if (value == null) {
      return OptionalLong.empty();
    }
    String v = value.trim();
    if (NUMBER.matcher(v).matches()) {
      BigDecimal n = new BigDecimal(v);
      if (n.compareTo(BigDecimal.valueOf(EPOCH_MILLIS_FROM)) >= 0) {
        return OptionalLong.of(cap(n.longValue() - nowMillis));
      }
      if (n.compareTo(BigDecimal.valueOf(EPOCH_SECONDS_FROM)) >= 0) {
        return OptionalLong.of(cap(n.movePointRight(3).longValue() - nowMillis));
      }
      return OptionalLong.of(cap(n.movePointRight(3).setScale(0, RoundingMode.CEILING)
          .longValue()));
    }
    if (!v.isEmpty() && GO.matcher(v).matches()) {
      double nanos = 0;
      Matcher m = GO_PART.matcher(v);
      while (m.find()) {
        double n = Double.parseDouble(m.group(1));
        nanos += n * switch (m.group(2)) {
          case "h" -> 3.6e12;
          case "m" -> 6e10;
          case "s" -> 1e9;
          case "ms" -> 1e6;
          case "us", "µs" -> 1e3;
          default -> 1;
        };
      }
      return OptionalLong.of(cap((long) Math.ceil(nanos / 1e6)));
    }
    return OptionalLong.empty();
  }

  private static long cap(long millis) {
    return Math.max(0, Math.min(RetryAfter.MAX_MILLIS, millis));
  }
}
