package io.sluice.redis;

import java.util.ArrayList;
import java.util.List;

/**
 * Recent readings of Redis {@code TIME}, and the lower bound of Redis's clock they give at a later
 * local instant. Pure and immutable: {@link RedisTimeClock} publishes a new one with each sample.
 *
 * <h2>The bound</h2>
 *
 * Redis read its clock at {@code redis} somewhere between sending the request and the reply
 * arriving at the local instant {@code received}. So at a later local instant {@code t}, Redis's
 * clock reads at least {@code redis + (t - received)}, whatever the offset between the two clocks
 * and however slow the round trip: a slow trip only makes the bound looser, never wrong. Three
 * corrections keep it a bound:
 * <ul>
 *   <li>one millisecond for the local clock's rounding (both local readings are floored);</li>
 *   <li>{@link #MAX_DRIFT_PPM} of the time since the sample, in case the local clock runs faster
 *       than Redis's (while Redis is unreachable the last samples are kept for as long as it takes,
 *       and the margin grows with their age: 0.5 ms after the usual 5 s, 360 ms after an hour);</li>
 *   <li>a local clock stepping back between the sample and {@code t} lowers the bound (safe); one
 *       stepping forward would raise it, so {@link RedisTimeClock} measures on a monotonic clock.</li>
 * </ul>
 * Each sample gives a bound; the best (highest) over the last {@code keep} samples is used, so one
 * slow round trip does not loosen it.
 */
final class RedisTimeSamples {
  /** Assumed worst rate difference between the local clock and Redis's, parts per million. */
  public static final long MAX_DRIFT_PPM = 100;

  /** One reading: Redis's clock in µs, and the local instant (ms) its reply arrived. */
  public record Sample(long redisMicros, long receivedLocalMillis) {}

  private final int keep;
  private final List<Sample> samples;

  private RedisTimeSamples(int keep, List<Sample> samples) {
    this.keep = keep;
    this.samples = List.copyOf(samples);
  }

  /** No samples yet, keeping the last {@code keep} once there are. */
  public static RedisTimeSamples none(int keep) {
    if (keep < 1) {
      throw new IllegalArgumentException("keep at least one sample");
    }
    return new RedisTimeSamples(keep, List.of());
  }

  /** These samples plus {@code sample}, without the oldest beyond {@code keep}. */
  public RedisTimeSamples with(Sample sample) {
    List<Sample> next = new ArrayList<>(samples);
    next.add(sample);
    while (next.size() > keep) {
      next.remove(0);
    }
    return new RedisTimeSamples(keep, next);
  }

  public boolean isEmpty() {
    return samples.isEmpty();
  }

  public List<Sample> samples() {
    return samples;
  }

  /**
   * The highest lower bound of Redis's clock (epoch ms) at the local instant {@code localMillis}
   * that any sample gives.
   *
   * @throws IllegalStateException when there is no sample
   */
  public long lowerBoundMillis(long localMillis) {
    if (samples.isEmpty()) {
      throw new IllegalStateException("no sample of Redis TIME yet");
    }
    long best = Long.MIN_VALUE;
    for (Sample s : samples) {
      best = Math.max(best, lowerBound(s, localMillis));
    }
    return best;
  }

  private static long lowerBound(Sample s, long localMillis) {
    long elapsed = localMillis - s.receivedLocalMillis();
    long drift = elapsed <= 0 ? 0 : (elapsed * MAX_DRIFT_PPM + 999_999) / 1_000_000;
    return Math.floorDiv(s.redisMicros(), 1000) + elapsed - 1 - drift;
  }
}
