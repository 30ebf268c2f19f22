package io.sluice.dispatcher.feedback;

import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * How long an event waits before its next attempt after a provider failure: exponential backoff
 * with full jitter. Pure: the random source is passed in.
 *
 * <p>Attempt {@code n} (1 for the first failure) waits a uniformly random time in
 * {@code [0, min(cap, base * 2^(n-1)))}. Full jitter, rather than a fixed exponential delay or
 * "equal jitter", is what spreads a herd: when a provider fails a burst of calls at once, their
 * retries land evenly over the whole window instead of all at its end, so the provider recovers
 * against a trickle, not a second burst (see the AWS Architecture Blog, "Exponential Backoff And
 * Jitter"). The expected wait still doubles with every failure.
 *
 * <pre>
 *   base 1s, cap 5m:  n=1 -> [0, 1s)   n=2 -> [0, 2s)   n=5 -> [0, 16s)   n=10 -> [0, 5m)
 * </pre>
 */
public record Backoff(Duration base, Duration cap) {
  public Backoff {
    if (base.isNegative() || base.isZero()) {
      throw new IllegalArgumentException("backoff base must be positive, got " + base);
    }
    if (cap.compareTo(base) < 0) {
      throw new IllegalArgumentException("backoff cap " + cap + " is below its base " + base);
    }
  }

  /** The upper bound of the wait after failure number {@code attempt} (1-based). */
  public long boundMillis(int attempt) {
    int doublings = Math.max(0, Math.min(attempt - 1, 62));
    long base = this.base.toMillis();
    long cap = this.cap.toMillis();
    // base << doublings overflows long for large attempts: compare before shifting.
    if (doublings >= Long.numberOfLeadingZeros(base) - 1) {
      return cap;
    }
    return Math.min(cap, base << doublings);
  }

  /** A wait after failure number {@code attempt}: uniform in [0, bound). */
  public long delayMillis(int attempt, DoubleSupplier uniform01) {
    return (long) Math.floor(uniform01.getAsDouble() * boundMillis(attempt));
  }
}
