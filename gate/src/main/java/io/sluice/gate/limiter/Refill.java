package io.sluice.gate.limiter;

/**
 * How a bucket refills, in units: at its quota's rate, less what an old line of reservations
 * still takes. When a quota is raised while the bucket owes reservations sold at the old rate,
 * those reservations keep their due times: they run on at the old rate until they end ({@code
 * oldRate} until {@code oldEndMicros}) and count against the new rate. Until then the bucket
 * refills at {@code rate - oldRate} (what the new rate leaves beside them), after at {@code rate}
 * (token_bucket.lua's "A change of rate"). Without an old line it is the plain rate.
 *
 * <p>The arithmetic is the script's, in the same order, so the two agree to the last bit; with no
 * old line it is exactly the single-rate bucket's.
 *
 * @param rate         the quota's refill, units per second, &gt; 0
 * @param oldRate      the old line's rate (0: none), at most {@code rate}
 * @param oldEndMicros when the old line ends (0: none)
 */
public record Refill(double rate, double oldRate, long oldEndMicros) {
  /** A bucket's refill with no old line. */
  public static Refill of(BucketSpec spec) {
    return new Refill(spec.refillPerSecond(), 0, 0);
  }

  /** A bucket's refill beside an old line ({@code oldEndMicros} 0: none). */
  public static Refill of(BucketSpec spec, double oldRate, long oldEndMicros) {
    return new Refill(spec.refillPerSecond(), oldRate, oldEndMicros);
  }

  /** Units refilled from {@code from} to {@code to} (none when {@code to <= from}). */
  public double gain(long from, long to) {
    if (to <= from) {
      return 0;
    }
    if (oldEndMicros > from) {
      double g = (Math.min(to, oldEndMicros) - from) * (rate - oldRate) / 1_000_000;
      if (to > oldEndMicros) {
        g = g + (to - oldEndMicros) * rate / 1_000_000;
      }
      return g;
    }
    return (to - from) * rate / 1_000_000;
  }

  /** Microseconds from {@code from} until {@code units} more have refilled (0 for none). */
  public double waitMicros(long from, double units) {
    if (units <= 0) {
      return 0;
    }
    double usPerUnit = 1_000_000 / rate;
    if (oldEndMicros > from) {
      double first = (oldEndMicros - from) * (rate - oldRate) / 1_000_000;
      if (units <= first) {
        return units * 1_000_000 / (rate - oldRate);
      }
      return (oldEndMicros - from) + (units - first) * usPerUnit;
    }
    return units * usPerUnit;
  }
}
