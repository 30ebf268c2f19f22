package io.sluice.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * One limit a provider publishes; a provider's calls must satisfy every one of its limits at once.
 *
 * <ul>
 *   <li>{@link Kind#RATE}: a steady rate, {@code amount} calls per second, spaced evenly (the leak);
 *       every provider has exactly one;
 *   <li>{@link Kind#CALLS}: at most {@code amount} calls per {@code per}, in a sliding or a fixed
 *       window ({@link Window});
 *   <li>{@link Kind#COST}: at most {@code amount} cost units (the events' {@code cost}) per
 *       {@code per}, in a sliding or a fixed window;
 *   <li>{@link Kind#CONCURRENCY}: at most {@code amount} calls in flight at once, across every
 *       dispatcher instance.
 * </ul>
 *
 * @param kind   what the limit counts
 * @param amount RATE: calls per second (may be fractional); otherwise a whole number &ge; 1
 * @param per    CALLS and COST: the window's length; otherwise null
 * @param window CALLS and COST: sliding or fixed; otherwise null
 * @param margin CALLS and COST: how much longer than {@code per} Sluice keeps each window, because
 *               it counts the times calls START and the provider counts when they ARRIVE (see
 *               {@link ConfigDefaults#LIMIT_MARGIN}); otherwise {@link Duration#ZERO}
 */
public record ProviderLimit(Kind kind, double amount, Duration per, Window window, Duration margin) {
  /** What a limit counts. */
  public enum Kind { RATE, CALLS, COST, CONCURRENCY }

  /**
   * How a window moves. SLIDING: every interval of length {@code per}, wherever it starts, holds at
   * most {@code amount}. FIXED: the windows are aligned to the clock, UTC: they start at whole
   * multiples of {@code per} since the epoch (per 1m on the minute, per 1h on the hour, per 1d at
   * midnight UTC).
   */
  public enum Window { SLIDING, FIXED }

  public ProviderLimit {
    Objects.requireNonNull(kind, "kind");
    if (!(amount > 0) || Double.isInfinite(amount)) {
      throw new IllegalArgumentException(kind + " limit needs a positive amount, not " + amount);
    }
    boolean windowed = kind == Kind.CALLS || kind == Kind.COST;
    if (windowed) {
      if (per == null || per.isNegative() || per.isZero() || window == null) {
        throw new IllegalArgumentException(kind + " limit needs a positive per and a window");
      }
      if (amount != Math.floor(amount)) {
        throw new IllegalArgumentException(kind + " limit needs a whole amount, not " + amount);
      }
      margin = margin == null ? ConfigDefaults.LIMIT_MARGIN : margin;
      if (margin.isNegative()) {
        throw new IllegalArgumentException("margin must not be negative, not " + margin);
      }
    } else {
      if (per != null || window != null) {
        throw new IllegalArgumentException(kind + " limit takes no per or window");
      }
      margin = Duration.ZERO;
    }
  }

  public static ProviderLimit rate(double perSecond) {
    return new ProviderLimit(Kind.RATE, perSecond, null, null, null);
  }

  public static ProviderLimit calls(long amount, Duration per, Window window) {
    return new ProviderLimit(Kind.CALLS, amount, per, window, null);
  }

  public static ProviderLimit cost(long amount, Duration per, Window window) {
    return new ProviderLimit(Kind.COST, amount, per, window, null);
  }

  public static ProviderLimit concurrency(int amount) {
    return new ProviderLimit(Kind.CONCURRENCY, amount, null, null, null);
  }

  /** The same limit with another amount (a learned, lower one). */
  public ProviderLimit withAmount(double newAmount) {
    return new ProviderLimit(kind, newAmount, per, window, margin);
  }

  /**
   * A name for the limit that does not change with its amount: {@code rate},
   * {@code calls:sliding:3600000}, {@code cost:fixed:60000}, {@code concurrency}. Redis keys use it,
   * so a lowered amount keeps the window's record of past calls.
   */
  public String id() {
    return switch (kind) {
      case RATE -> "rate";
      case CONCURRENCY -> "concurrency";
      default -> kind.name().toLowerCase(Locale.ROOT) + ":"
          + window.name().toLowerCase(Locale.ROOT) + ":" + per.toMillis();
    };
  }
}
