package io.sluice.app.ops;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A probe's last answer, reused for a short time so that frequent scrapes of {@code /health}
 * (several load balancers, each every second) cost the dependency at most one probe per period.
 *
 * <p>The answer's age counts from when the probe <em>finished</em>: a probe that timed out after
 * two seconds is still reused for the whole period, instead of being retried at once by the
 * request that queued behind it. Concurrent callers wait for the one probe in progress
 * (synchronized) rather than starting their own.
 */
final class CachedResult {
  private final long ttlNanos;
  private final LongSupplier nanoClock;
  private final Supplier<HealthCheck.Result> probe;

  private HealthCheck.Result last;
  private long lastAtNanos;

  /**
   * @param ttl       how long an answer is reused; zero asks every time
   * @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime})
   */
  CachedResult(Duration ttl, LongSupplier nanoClock, Supplier<HealthCheck.Result> probe) {
    this.ttlNanos = ttl.toNanos();
    this.nanoClock = nanoClock;
    this.probe = probe;
  }

  synchronized HealthCheck.Result get() {
    if (last != null && nanoClock.getAsLong() - lastAtNanos < ttlNanos) {
      return last;
    }
    last = probe.get();
    lastAtNanos = nanoClock.getAsLong();
    return last;
  }
}
