package io.sluice.lab.bench;

import java.util.Arrays;

/**
 * The statistics of the benchmark figures. Pure: arrays in, numbers out, nothing measured here,
 * so each one is unit-tested against values worked out by hand.
 *
 * <p>Percentiles are nearest-rank (the smallest value with at least p of the values at or below
 * it): a reported p99 is a value that was actually observed, never an interpolation between two.
 */
final class BenchStats {
  private BenchStats() {}

  /** The nearest-rank {@code p}-th percentile (0 &lt; p &le; 100) of {@code values}; NaN when empty. */
  static double percentile(double[] values, double p) {
    if (values.length == 0) {
      return Double.NaN;
    }
    if (!(p > 0 && p <= 100)) {
      throw new IllegalArgumentException("a percentile in (0, 100], not " + p);
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  /** Largest value; NaN when empty. */
  static double max(double[] values) {
    return values.length == 0 ? Double.NaN : Arrays.stream(values).max().getAsDouble();
  }

  /** Smallest value; NaN when empty. */
  static double min(double[] values) {
    return values.length == 0 ? Double.NaN : Arrays.stream(values).min().getAsDouble();
  }

  /**
   * The most of the sorted instants {@code times} within any half-open window of length
   * {@code window}: [t, t + window). It is enough to start windows at the instants themselves
   * (sliding a window's start forward to its first instant never loses one). Two pointers, O(n).
   */
  static int maxInWindow(long[] times, long window) {
    int best = 0;
    int first = 0;
    for (int last = 0; last < times.length; last++) {
      if (last > 0 && times[last] < times[last - 1]) {
        throw new IllegalArgumentException("times must be sorted");
      }
      while (times[last] - times[first] >= window) {
        first++;
      }
      best = Math.max(best, last - first + 1);
    }
    return best;
  }

  /** The gaps between consecutive sorted instants: n - 1 of them. */
  static double[] gaps(long[] times) {
    double[] gaps = new double[Math.max(0, times.length - 1)];
    for (int i = 1; i < times.length; i++) {
      gaps[i - 1] = times[i] - times[i - 1];
    }
    return gaps;
  }

  /**
   * The rate of the sorted instants (per unit of their time): n - 1 intervals over the span from
   * the first to the last. Counting calls in a fixed window instead would be off by up to one
   * call (1% of 100), and this figure is compared with a ±1% target.
   */
  static double rate(long[] times, double unitsPerSecond) {
    if (times.length < 2 || times[times.length - 1] == times[0]) {
      return Double.NaN;
    }
    return (times.length - 1) * unitsPerSecond / (times[times.length - 1] - times[0]);
  }

  /**
   * Jain's fairness index of the amounts: (Σx)² / (n·Σx²), 1 when all are equal, 1/n when one
   * has everything. NaN when there is nothing, 1 when all are zero (equal).
   */
  static double jain(double[] amounts) {
    if (amounts.length == 0) {
      return Double.NaN;
    }
    double sum = 0;
    double squares = 0;
    for (double x : amounts) {
      sum += x;
      squares += x * x;
    }
    return squares == 0 ? 1 : sum * sum / (amounts.length * squares);
  }

  /** Zipf weights with exponent {@code s} over {@code n} ranks (rank 1 first), summing to 1. */
  static double[] zipf(int n, double s) {
    double[] w = new double[n];
    double total = 0;
    for (int k = 1; k <= n; k++) {
      w[k - 1] = 1 / Math.pow(k, s);
      total += w[k - 1];
    }
    for (int k = 0; k < n; k++) {
      w[k] /= total;
    }
    return w;
  }

  /**
   * The per-tenant allowance L at which {@code overFraction} of {@code events} spread by
   * {@code weights} exceeds it: Σ max(0, events·w_k − L) = overFraction · events. The excess falls
   * as L grows, so bisection finds it.
   */
  static double allowanceFor(double[] weights, long events, double overFraction) {
    double lo = 0;
    double hi = events;
    for (int i = 0; i < 100; i++) {
      double mid = (lo + hi) / 2;
      if (excess(weights, events, mid) > overFraction * events) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return (lo + hi) / 2;
  }

  /** Events over {@code allowance} per tenant, at the expected counts events·w_k. */
  static double excess(double[] weights, long events, double allowance) {
    double over = 0;
    for (double w : weights) {
      over += Math.max(0, events * w - allowance);
    }
    return over;
  }
}
