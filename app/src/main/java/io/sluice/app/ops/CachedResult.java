package io.sluice.app.ops;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A probe's last answer, reused for a short time so that frequent requests (several load
 * balancers scraping {@code /health} each second, two consoles polling {@code /admin/status})
 * cost the dependency at most one probe per period.
 *
 * <p>The answer's age counts from when the probe <em>finished</em>: a probe that timed out after
 * two seconds is still reused for the whole period, instead of being retried at once by the
 * request that queued behind it. Concurrent callers wait for the one probe in progress
 * (synchronized) rather than starting their own. Pure: the clock is passed in.
 *
 * @param <T> the answer; a probe that can fail should return its failure as an answer, so that
 *            the failure is reused too (a thrown exception is not kept)
 */
public final class CachedResult<T> {
  /** An answer and how long ago its probe finished. */
  public record Aged<T>(T value, Duration age) {}

  private final long ttlNanos;
  private final LongSupplier nanoClock;
  private final Supplier<T> probe;

  private T last;
  private long lastAtNanos;

  /**
   * @param ttl       how long an answer is reused; zero asks every time
   * @param nanoClock a monotonic clock in nanoseconds ({@code System::nanoTime})
   */
  public CachedResult(Duration ttl, LongSupplier nanoClock, Supplier<T> probe) {
    this.ttlNanos = ttl.toNanos();
    this.nanoClock = nanoClock;
    this.probe = probe;
  }

  /** The answer, probed again when the last one is older than the period. */
  public T get() {
    return aged().value();
  }

  /** The answer and its age. */
  public synchronized Aged<T> aged() {
    long now = nanoClock.getAsLong();
    if (last == null || now - lastAtNanos >= ttlNanos) {
      last = probe.get();
      lastAtNanos = nanoClock.getAsLong();
      now = lastAtNanos;
    }
    return new Aged<>(last, Duration.ofNanos(now - lastAtNanos));
  }
}
