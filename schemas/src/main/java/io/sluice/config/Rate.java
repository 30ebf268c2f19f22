package io.sluice.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rate such as {@code 50/s}, {@code 600/m} or {@code 10/h}, kept as events per second.
 *
 * @param perSecond strictly positive
 */
public record Rate(double perSecond) {
  private static final Pattern FORM = Pattern.compile("^\\s*(\\d+(?:\\.\\d+)?)\\s*/\\s*(s|m|h)\\s*$");

  public Rate {
    if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
      throw new IllegalArgumentException("rate must be positive, got " + perSecond);
    }
  }

  /** Parses {@code N/s}, {@code N/m} or {@code N/h}; the message says what was expected. */
  public static Rate parse(String text) {
    Matcher m = FORM.matcher(text == null ? "" : text);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "expected a rate like \"50/s\", \"600/m\" or \"10/h\", got \"" + text + "\"");
    }
    double n = Double.parseDouble(m.group(1));
    double seconds = switch (m.group(2)) {
      case "s" -> 1;
      case "m" -> 60;
      default -> 3600;
    };
    return new Rate(n / seconds);
  }

  @Override
  public String toString() {
    return perSecond + "/s";
  }
}
