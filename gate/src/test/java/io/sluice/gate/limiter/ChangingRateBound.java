package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The bound of a bucket whose rate changes (a quota raised or cut): what was sold keeps its due
 * times and counts against the new rate, so the rate a window is allowed at {@code t} is the
 * highest in force in {@code [t - reach, t]} ({@link TokenBucketMath#reachMicros}). Used by
 * {@code TokenBucketRateChangeProperties} and {@link QuotaBound}.
 *
 * <p>{@code changes}: {@code {at, index of the rate}}, the first the starting rate (at a time
 * before any due time); {@code at} is the bucket's decision before the change, from which the new
 * rate counts.
 */
final class ChangingRateBound {
  private ChangingRateBound() {}

  /**
   * The first window [t_i, t_k + 1 us] of the due times over the bound, described (empty if none):
   * in any window (the microsecond: each is rounded up, as in
   * TokenBucketProperties), at most capacity + the integral over it of the highest rate in force
   * within a reach before (the rate since a change counts from the bucket's decision before it).
   *
   * <p>A window may hold one unit more for each change within a reach before its start or in it:
   * the unit of the stream of reservations sold before the change that is due in it beside those
   * sold after. Units are whole: the old line's unit is due when it has refilled at the old rate,
   * so most of it was paid before the change, yet it counts whole at its due time, beside what
   * the new rate sells then. Every unit is counted at its own due time, so this is one unit per
   * change, not one event (it was {@code maxCost} units, one event, until issue 34: 6,000 histories
   * with costs up to 4 hold one unit; none do without it: a raise from 3/s to 8/s with a full
   * horizon sold puts 42 units in 5.125 s, 1 + 8 * 5.124996 allowed). (A single-rate bucket has
   * no such second stream, and its bound is exactly TokenBucketProperties'.) A multi-rule bucket
   * sells no reservations, so no old line: 0 units per change and a reach of 0, the rate in force
   * at each instant.
   */
  static Optional<String> firstExcess(List<Long> dueTimes, double capacity, List<Double> rates,
      List<long[]> changes, long reach, int unitsPerChange) {
    List<Long> sorted = new ArrayList<>(dueTimes);
    Collections.sort(sorted);
    if (sorted.isEmpty()) {
      return Optional.empty();
    }
    // Integrated from just before the first due time: differences of integrals from 0 would lose
    // the microseconds to rounding at epoch times.
    long base = sorted.get(0) - 1;
    // The allowed rate is a step function: it can change only at a change or a reach after one.
    List<Long> steps = new ArrayList<>();
    for (long[] c : changes) {
      steps.add(c[0]);
      steps.add(c[0] + reach);
    }
    Collections.sort(steps);
    double[] integral = new double[sorted.size() * 2];
    for (int i = 0; i < sorted.size(); i++) {
      integral[2 * i] = allowedUnits(base, sorted.get(i), steps, rates, changes, reach);
      integral[2 * i + 1] = allowedUnits(base, sorted.get(i) + 1, steps, rates, changes, reach);
    }
    for (int i = 0; i < sorted.size(); i++) {
      for (int k = i; k < sorted.size(); k++) {
        double allowed = capacity + integral[2 * k + 1] - integral[2 * i]
            + unitsPerChange * changesNear(sorted.get(i), sorted.get(k), changes, reach);
        if (k - i + 1 > allowed + 1e-6) {
          return Optional.of((k - i + 1) + " units due from " + sorted.get(i) / 1e6 + " s to "
              + sorted.get(k) / 1e6 + " s, allowed " + allowed + "; rates " + rates + ", changes "
              + changes.stream().map(c -> c[0] + "->" + rates.get((int) c[1])).toList());
        }
      }
    }
    return Optional.empty();
  }

  /** The changes made within [from - reach, to] (the first entry is the starting rate). */
  private static long changesNear(long from, long to, List<long[]> changes, long reach) {
    return changes.stream().skip(1).filter(c -> c[0] >= from - reach && c[0] <= to).count();
  }

  /** The integral of the allowed rate from {@code base} to {@code t}, in units. */
  private static double allowedUnits(long base, long t, List<Long> steps, List<Double> rates, List<long[]> changes,
      long reach) {
    double units = 0;
    long from = base;
    for (int s = 0; s <= steps.size() && from < t; s++) {
      long to = s < steps.size() ? Math.min(t, steps.get(s)) : t;
      if (to > from) {
        units += (to - from) * allowedRate(from + (to - from) / 2, rates, changes, reach) / 1e6;
        from = to;
      }
    }
    return units;
  }

  /** The highest rate in force at any time in [t - reach, t]. */
  private static double allowedRate(long t, List<Double> rates, List<long[]> changes, long reach) {
    double max = 0;
    for (int c = 0; c < changes.size(); c++) {
      long start = changes.get(c)[0];
      long end = c + 1 < changes.size() ? changes.get(c + 1)[0] : Long.MAX_VALUE;
      if (start <= t && end > t - reach) {
        max = Math.max(max, rates.get((int) changes.get(c)[1]));
      }
    }
    return max;
  }
}
