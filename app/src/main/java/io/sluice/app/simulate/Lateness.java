package io.sluice.app.simulate;

/**
 * A bounded histogram of lateness in whole milliseconds, log-bucketed like HdrHistogram: values
 * below {@link #EXACT} each have a bucket of their own (so a hand-computed quantile below half a
 * second is exact), above it every power of two is split into {@code EXACT / 2} buckets, so a
 * quantile read back is at most 1/256 (0.4 %) below the value recorded. The maximum is kept
 * exactly. Pure.
 *
 * <p>Why not a list of values: a day at 1,000 events/s is 86.4 million of them. Why lazily
 * allocated octaves: most tenants' lateness spans a few powers of two, and a simulation keeps one
 * of these per tenant, so a tenant costs a few kilobytes, not the whole range.
 */
public final class Lateness {
  /** Values below this many milliseconds are counted exactly. */
  static final int EXACT = 512;
  private static final int HALF = EXACT / 2;
  private static final int SHIFT = Integer.numberOfTrailingZeros(HALF);

  private int[] exact;
  /** Octave k (k &gt;= 1) counts [EXACT * 2^(k - 1), EXACT * 2^k), in HALF buckets of 2^k. */
  private final int[][] octaves = new int[64][];
  private long count;
  private long max;

  /** Counts one value; a negative one counts as 0. */
  public void record(long millis) {
    long v = Math.max(0, millis);
    count++;
    max = Math.max(max, v);
    if (v < EXACT) {
      if (exact == null) {
        exact = new int[EXACT];
      }
      exact[(int) v]++;
      return;
    }
    int octave = 64 - Long.numberOfLeadingZeros(v) - SHIFT - 1; // 1 for [512, 1024)
    int[] buckets = octaves[octave];
    if (buckets == null) {
      buckets = new int[HALF];
      octaves[octave] = buckets;
    }
    buckets[(int) ((v >>> octave) - HALF)]++;
  }

  /** Adds another's counts to this one's, as if this had recorded its values too. */
  void add(Lateness other) {
    count += other.count;
    max = Math.max(max, other.max);
    if (other.exact != null) {
      if (exact == null) {
        exact = new int[EXACT];
      }
      for (int v = 0; v < EXACT; v++) {
        exact[v] += other.exact[v];
      }
    }
    for (int octave = 1; octave < octaves.length; octave++) {
      int[] theirs = other.octaves[octave];
      if (theirs == null) {
        continue;
      }
      if (octaves[octave] == null) {
        octaves[octave] = new int[HALF];
      }
      for (int i = 0; i < HALF; i++) {
        octaves[octave][i] += theirs[i];
      }
    }
  }

  public long count() {
    return count;
  }

  public long max() {
    return max;
  }

  /**
   * The value at quantile {@code q} (the {@code ceil(q * count)}-th smallest), as the lowest value
   * of its bucket, never above {@link #max}; 0 when nothing was recorded.
   */
  public long quantile(double q) {
    if (count == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(q * count));
    long seen = 0;
    if (exact != null) {
      for (int v = 0; v < EXACT; v++) {
        seen += exact[v];
        if (seen >= rank) {
          return v;
        }
      }
    }
    for (int octave = 1; octave < octaves.length; octave++) {
      int[] buckets = octaves[octave];
      if (buckets == null) {
        continue;
      }
      for (int i = 0; i < HALF; i++) {
        seen += buckets[i];
        if (seen >= rank) {
          return Math.min(max, (long) (HALF + i) << octave);
        }
      }
    }
    return max;
  }
}
