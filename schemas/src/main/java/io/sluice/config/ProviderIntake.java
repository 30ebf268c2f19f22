package io.sluice.config;

import java.time.Duration;

/**
 * What a producer may ask of a provider's calls beyond "as soon as the quota allows", and how far.
 *
 * @param maxDelay    how far ahead an event's {@code deliverAt} or {@code delay} may be when the gate
 *                    first sees it; beyond it the event is dead-lettered {@code beyond_max_delay}.
 *                    Bounded by the ladder: a wait of {@code maxDelay} may cost at most
 *                    {@link #MAX_LADDER_RECORDS} delay records ({@code ConfigChecks})
 * @param dedupWindow how long an accepted event id is remembered: an event with the same id within
 *                    it is not called again ({@code duplicate}); {@link Duration#ZERO}: off. From
 *                    {@link #MIN_DEDUP_WINDOW} to {@link #MAX_DEDUP_WINDOW}
 * @param ordering    whether the events of one {@code orderingKey} are called in order
 *                    ({@code ordering: perKey}); {@link OrderingRule#OFF} when absent
 */
public record ProviderIntake(Duration maxDelay, Duration dedupWindow, OrderingRule ordering) {
  /**
   * The default ladder's longest step: a wait of it costs one delay record. A provider without
   * {@code maxDelay} takes its ladder's longest step ({@code ConfigBinder}).
   */
  public static final Duration DEFAULT_MAX_DELAY = Duration.ofMinutes(10);
  public static final Duration MIN_DEDUP_WINDOW = Duration.ofMinutes(10);
  public static final Duration MAX_DEDUP_WINDOW = Duration.ofDays(7);
  /**
   * The most delay records a wait of {@code maxDelay} may cost: the cost of a scheduled event
   * stays a handful of records however far ahead (7 days at a 6h step: 28), never one per step per
   * few minutes (1 day at the default ladder's 10m: 144).
   */
  public static final int MAX_LADDER_RECORDS = 50;
  public static final ProviderIntake DEFAULT = new ProviderIntake(DEFAULT_MAX_DELAY, Duration.ZERO,
      OrderingRule.OFF);

  public ProviderIntake {
    maxDelay = maxDelay == null ? DEFAULT_MAX_DELAY : maxDelay;
    dedupWindow = dedupWindow == null ? Duration.ZERO : dedupWindow;
    ordering = ordering == null ? OrderingRule.OFF : ordering;
  }

  /** A provider asking for a time and a window only, its events unordered. */
  public ProviderIntake(Duration maxDelay, Duration dedupWindow) {
    this(maxDelay, dedupWindow, OrderingRule.OFF);
  }

  /** Whether repeated ids are suppressed. */
  public boolean dedups() {
    return !dedupWindow.isZero();
  }

  /** Whether events with an {@code orderingKey} are called in order per key. */
  public boolean orders() {
    return ordering.perKey();
  }
}
