package io.sluice.relay.it;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** Nearest-rank percentiles of lateness samples in milliseconds. */
record Lateness(long p50, long p99, long max, int n) {

  static Lateness of(Collection<Long> millis) {
    if (millis.isEmpty()) {
      throw new IllegalArgumentException("no samples");
    }
    List<Long> sorted = new ArrayList<>(millis);
    sorted.sort(null);
    return new Lateness(rank(sorted, 0.50), rank(sorted, 0.99), sorted.get(sorted.size() - 1), sorted.size());
  }

  private static long rank(List<Long> sorted, double q) {
    int i = (int) Math.ceil(q * sorted.size()) - 1;
    return sorted.get(Math.max(0, i));
  }

  @Override
  public String toString() {
    return "p50=" + p50 + "ms p99=" + p99 + "ms max=" + max + "ms (n=" + n + ")";
  }
}
