package io.sluice.config;

import com.fasterxml.jackson.databind.util.StdConverter;
import java.time.Duration;

/**
 * The text of a work event's {@code delay}: a whole number of one unit, {@code 250ms}, {@code 90s},
 * {@code 10m}, {@code 2h}, {@code 1d}; one to nine digits, no sign, no space, lower-case units.
 * The configuration's durations, plus days. Pure.
 *
 * <p>Why not ISO-8601 ({@code PT10M}): producers write the same text as Sluice's configuration
 * and QStash's {@code Upstash-Delay}, and nine digits of milliseconds to days all fit a
 * {@link Duration} without overflow, so a value that passes here is always a duration.
 */
public final class DelayText {
  public static final int MAX_DIGITS = 9;

  private DelayText() {}

  /** The duration, or null when the text is not a delay of the allowed form. */
  public static Duration parse(String s) {
    if (s == null) {
      return null;
    }
    int digits = 0;
    while (digits < s.length() && s.charAt(digits) >= '0' && s.charAt(digits) <= '9') {
      digits++;
    }
    if (digits < 1 || digits > MAX_DIGITS) {
      return null;
    }
    long n = Long.parseLong(s, 0, digits, 10);
    return switch (s.substring(digits)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      case "d" -> Duration.ofDays(n);
      default -> null;
    };
  }

  /** The shortest exact text for a duration: {@code 1d}, {@code 2h}, {@code 10m}, {@code 90s}, {@code 250ms}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    long[] units = {86_400_000, 3_600_000, 60_000, 1000};
    String[] names = {"d", "h", "m", "s"};
    for (int i = 0; i < units.length; i++) {
      if (ms > 0 && ms % units[i] == 0) {
        return ms / units[i] + names[i];
      }
    }
    return ms + "ms";
  }

  /** Writes a {@code delay} in JSON as the contract has it (Jackson would write seconds). */
  public static final class Written extends StdConverter<Duration, String> {
    @Override
    public String convert(Duration value) {
      return format(value);
    }
  }
}
