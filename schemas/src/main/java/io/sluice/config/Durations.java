package io.sluice.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The duration text of the configuration file: {@code 250ms}, {@code 5s}, {@code 2m}, {@code 1h}. */
public final class Durations {
  private static final Pattern FORM = Pattern.compile("^\\s*(\\d+)\\s*(ms|s|m|h)\\s*$");

  private Durations() {}

  /** Parses a duration; the message says what was expected. */
  public static Duration parse(String text) {
    Matcher m = FORM.matcher(text == null ? "" : text);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "expected a duration like \"250ms\", \"5s\", \"2m\" or \"1h\", got \"" + text + "\"");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
  }

  /** The shortest exact text for a duration: 1h, 2m, 30s, 250ms. Inverse of {@link #parse}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0 && ms > 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms > 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0 && ms > 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
