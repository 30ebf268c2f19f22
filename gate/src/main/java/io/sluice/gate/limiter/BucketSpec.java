package io.sluice.gate.limiter;

import io.sluice.config.Quota;
import java.time.Duration;

/**
 * The shape of one bucket: how much it holds and how fast it refills. Immutable.
 *
 * @param capacity         cost units the bucket holds when full (the burst), &gt; 0
 * @param refillPerSecond  cost units added per second, &gt; 0
 * @param horizonMicros    how far ahead units may be reserved (bounded debt), &ge; 0
 */
public record BucketSpec(double capacity, double refillPerSecond, long horizonMicros) {
  public BucketSpec {
    if (!(capacity > 0) || !(refillPerSecond > 0) || horizonMicros < 0) {
      throw new IllegalArgumentException(
          "capacity and refill must be positive and horizon non-negative: " + capacity + ", "
              + refillPerSecond + ", " + horizonMicros);
    }
  }

  public static BucketSpec of(Quota quota, Duration horizon) {
    return new BucketSpec(quota.capacity(), quota.refill().perSecond(), horizon.toNanos() / 1000);
  }

  /** Microseconds of refill per cost unit. */
  public double microsPerUnit() {
    return 1_000_000d / refillPerSecond;
  }

  /** This bucket at a fraction of its size and rate (a local fallback at one instance's share). */
  public BucketSpec share(double fraction) {
    return new BucketSpec(
        Math.max(1, capacity * fraction), refillPerSecond * fraction, horizonMicros);
  }
}
