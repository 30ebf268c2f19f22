package io.sluice.lab.chaos;

import java.util.List;

/**
 * The largest breach of a token bucket's bound in a list of admission instants: admitted cost in
 * any window [t_i, t_j] must be at most {@code capacity + refill * (t_j - t_i)} (the guarantee of
 * the README, counted at the admission instants).
 *
 * <p>Windows that overlap an excused interval (a Redis outage under a policy that loosens the
 * bound) get {@code extraCapacity} more, or are not judged at all when it is infinite. Instants
 * are whole milliseconds, so one millisecond of refill is allowed on every window for rounding.
 */
public final class OverAdmission {
  /** One admission: when, and its cost. */
  public record Admission(long atMillis, double cost) {}

  /** An interval [from, to] in epoch ms where {@code extraCapacity} more is allowed. */
  public record Excuse(long fromMillis, long toMillis, double extraCapacity) {
    boolean overlaps(long from, long to) {
      return from <= toMillis && to >= fromMillis;
    }
  }

  /**
   * The worst window: {@code excess} is admitted cost minus the bound allowed for that window
   * (positive means over-admitted), over the window [fromMillis, toMillis] holding {@code count}
   * admissions.
   */
  public record Worst(double excess, long fromMillis, long toMillis, int count) {
    public boolean overAdmitted() {
      return excess > 1e-9;
    }
  }

  private OverAdmission() {}

  /**
   * @param admissions sorted by time
   * @param capacity   the bucket's capacity
   * @param refillPerSecond its refill rate
   */
  public static Worst worst(List<Admission> admissions, double capacity, double refillPerSecond,
      List<Excuse> excuses) {
    Worst worst = new Worst(Double.NEGATIVE_INFINITY, 0, 0, 0);
    int n = admissions.size();
    // O(n^2) on purpose: n is the admissions of one (provider, tenant) in one chaos run (a few
    // thousand at most), and the excuses make the bound depend on the window, not only on its
    // length.
    for (int i = 0; i < n; i++) {
      double cost = 0;
      long from = admissions.get(i).atMillis();
      for (int j = i; j < n; j++) {
        cost += admissions.get(j).cost();
        long to = admissions.get(j).atMillis();
        double extra = 0;
        for (Excuse e : excuses) {
          if (e.overlaps(from, to)) {
            extra = Math.max(extra, e.extraCapacity());
          }
        }
        if (Double.isInfinite(extra)) {
          continue;
        }
        double bound = capacity + extra + refillPerSecond * (to - from + 1) / 1000.0;
        double excess = cost - bound;
        if (excess > worst.excess()) {
          worst = new Worst(excess, from, to, j - i + 1);
        }
      }
    }
    return worst;
  }
}
