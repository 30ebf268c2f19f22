package io.sluice.embedded.mock;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One limit the {@link MockProvider} enforces: at most {@code amount} units in any sliding
 * {@code window} of arrival times. Units are calls ({@link Unit#CALLS}) or the cost the request
 * carries in {@link MockProvider#COST_HEADER} ({@link Unit#COST}).
 *
 * <p>Written on the command line as {@code <amount>/<window>}, the window a number and a unit
 * {@code ms|s|m|h}: {@code 20/1s}, {@code 600/60s}, {@code 5000/1m}.
 */
public record ProviderWindow(Unit unit, long amount, Duration window) {
  /** What a limit counts. */
  public enum Unit {
    CALLS("calls", "requests"),
    COST("cost", "tokens");

    /** The policy name's prefix in IETF headers ({@code "calls-1s"}). */
    final String ietfPrefix;
    /** The suffix of the x-ratelimit family ({@code x-ratelimit-limit-requests}). */
    final String xRateLimitSuffix;

    Unit(String ietfPrefix, String xRateLimitSuffix) {
      this.ietfPrefix = ietfPrefix;
      this.xRateLimitSuffix = xRateLimitSuffix;
    }
  }

  private static final Pattern TEXT = Pattern.compile("(\\d+)/(\\d+)(ms|s|m|h)");

  public ProviderWindow {
    if (amount < 1 || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("a limit needs a positive amount and window, not "
          + amount + "/" + window);
    }
  }

  /** {@code 20/1s}: 20 units in any sliding second. */
  public static ProviderWindow parse(Unit unit, String text) {
    Matcher m = TEXT.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("a limit is <amount>/<window> with the window in "
          + "ms, s, m or h (e.g. 20/1s, 600/60s), not '" + text + "'");
    }
    long n = Long.parseLong(m.group(2));
    Duration window = switch (m.group(3)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
    return new ProviderWindow(unit, Long.parseLong(m.group(1)), window);
  }

  public static ProviderWindow calls(long amount, Duration window) {
    return new ProviderWindow(Unit.CALLS, amount, window);
  }

  public static ProviderWindow cost(long amount, Duration window) {
    return new ProviderWindow(Unit.COST, amount, window);
  }

  /** The IETF policy name: {@code calls-1s}, {@code cost-60s} (window in whole seconds, or ms). */
  String policyName() {
    long ms = window.toMillis();
    return unit.ietfPrefix + "-" + (ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms");
  }

  /** The window in whole seconds, rounded up: the IETF {@code w}. */
  long windowSeconds() {
    return (window.toMillis() + 999) / 1000;
  }
}
