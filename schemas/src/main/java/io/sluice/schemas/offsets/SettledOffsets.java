package io.sluice.schemas.offsets;

import java.util.Arrays;

/**
 * Offsets of one partition at or above its committed offset that are already settled: what a
 * commit's metadata carries so that the partition's next owner does not call them again.
 *
 * <p>Why it exists: the committed offset may only move up to the first unsettled record, and fair
 * queueing can hold a low-weight record for a long time while thousands behind it are delivered.
 * Without this, a crash replays all of those (the issue measured 6 to 72% duplicate calls under
 * SIGKILL). With it, a crash replays only the records in flight, those still queued, and those
 * settled since the last commit (Confluent's Parallel Consumer does the same).
 *
 * <p>Held as sorted, disjoint, non-adjacent half-open intervals {@code [from, to)}: a partition
 * settles in long runs broken by the few records fair queueing holds back, so intervals are far
 * fewer than offsets. Offsets that hold no record (transaction markers, compacted away) may fall
 * inside an interval: nothing is delivered there, so calling them settled is harmless.
 *
 * <p>Immutable. The invariant {@code from[i] < to[i] < from[i+1]} is checked on construction.
 */
public final class SettledOffsets {
  /** Nothing known beyond the committed offset. */
  public static final SettledOffsets NONE = new SettledOffsets(new long[0]);

  /** {@code bounds[2i]} = from of interval i (inclusive), {@code bounds[2i+1]} = its to (exclusive). */
  private final long[] bounds;

  private SettledOffsets(long[] bounds) {
    this.bounds = bounds;
  }

  /** From flat bounds {@code from0, to0, from1, to1, ...}; rejects unsorted or touching intervals. */
  public static SettledOffsets of(long... bounds) {
    if (bounds.length % 2 != 0) {
      throw new IllegalArgumentException("bounds come in pairs: " + Arrays.toString(bounds));
    }
    for (int i = 0; i < bounds.length; i++) {
      // from < to inside an interval; to < next from between intervals (touching ones are merged).
      if (bounds[i] < 0 || (i > 0 && bounds[i] <= bounds[i - 1])) {
        throw new IllegalArgumentException("intervals must be sorted, non-empty, apart and "
            + "non-negative: " + Arrays.toString(bounds));
      }
    }
    return bounds.length == 0 ? NONE : new SettledOffsets(bounds.clone());
  }

  /** Builds intervals in increasing order, merging touching ones. */
  public static final class Builder {
    private long[] bounds = new long[16];
    private int size;

    /** Adds {@code [from, to)}; {@code from} must be at or past the end of what was added. */
    public Builder add(long from, long to) {
      if (to <= from) {
        return this;
      }
      if (size > 0 && from < bounds[size - 1]) {
        throw new IllegalArgumentException("interval [" + from + ", " + to + ") added after "
            + bounds[size - 1]);
      }
      if (size > 0 && from == bounds[size - 1]) {
        bounds[size - 1] = to;
        return this;
      }
      if (size + 2 > bounds.length) {
        bounds = Arrays.copyOf(bounds, bounds.length * 2);
      }
      bounds[size++] = from;
      bounds[size++] = to;
      return this;
    }

    public SettledOffsets build() {
      return size == 0 ? NONE : new SettledOffsets(Arrays.copyOf(bounds, size));
    }
  }

  /** True when {@code offset} lies in one of the intervals. */
  public boolean contains(long offset) {
    // The last bound <= offset: a from (even index) means inside, a to (odd index) means outside.
    int i = Arrays.binarySearch(bounds, offset);
    if (i >= 0) {
      return i % 2 == 0;
    }
    int insertion = -i - 1;
    return insertion % 2 == 1;
  }

  /** Number of intervals. */
  public int intervals() {
    return bounds.length / 2;
  }

  public long from(int interval) {
    return bounds[2 * interval];
  }

  public long to(int interval) {
    return bounds[2 * interval + 1];
  }

  /** One past the last settled offset known, or -1 when none is. */
  public long end() {
    return bounds.length == 0 ? -1 : bounds[bounds.length - 1];
  }

  /** Number of offsets inside the intervals. */
  public long count() {
    long n = 0;
    for (int i = 0; i < bounds.length; i += 2) {
      n += bounds[i + 1] - bounds[i];
    }
    return n;
  }

  /** The first {@code n} intervals. */
  public SettledOffsets first(int n) {
    return n >= intervals() ? this : n <= 0 ? NONE : new SettledOffsets(Arrays.copyOf(bounds, 2 * n));
  }

  /** Every offset in this or in {@code other}. */
  public SettledOffsets union(SettledOffsets other) {
    Builder b = new Builder();
    int i = 0;
    int j = 0;
    long from = -1;
    long to = -1;
    while (i < intervals() || j < other.intervals()) {
      boolean mine = j >= other.intervals() || (i < intervals() && from(i) <= other.from(j));
      long f = mine ? from(i) : other.from(j);
      long t = mine ? to(i++) : other.to(j++);
      if (to >= f) {
        to = Math.max(to, t); // overlapping or touching: one interval
      } else {
        if (to > from) {
          b.add(from, to);
        }
        from = f;
        to = t;
      }
    }
    if (to > from) {
      b.add(from, to);
    }
    return b.build();
  }

  /** Only the parts at or above {@code offset}. */
  public SettledOffsets from(long offset) {
    Builder b = new Builder();
    for (int i = 0; i < intervals(); i++) {
      b.add(Math.max(offset, from(i)), to(i));
    }
    return b.build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SettledOffsets s && Arrays.equals(bounds, s.bounds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bounds);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("settled");
    for (int i = 0; i < intervals(); i++) {
      s.append(" [").append(from(i)).append(',').append(to(i)).append(')');
    }
    return s.toString();
  }
}
