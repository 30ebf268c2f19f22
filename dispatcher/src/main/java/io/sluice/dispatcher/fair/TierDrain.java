package io.sluice.dispatcher.fair;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * When each tier's waiting events are all served, if nothing more arrives: the lane serves
 * {@code ratePerSecond} of cost, shared by weight among the tiers that have something queued
 * ({@link FairQueue}'s rule, work-conserving), so a tier whose backlog ends gives its share to the
 * others. Pure.
 *
 * <p>Worked: gold (weight 8) with 80 queued and free (1) with 50, at 18/s. Together, gold is
 * served 16/s and free 2/s: gold is done at 80/16 = 5 s, free has 40 left; alone it is served
 * 18/s and is done 40/18 = 2.2 s later, at 7.2 s (its 50 alone at 2/s would have taken 25 s).
 * So a tier's estimate is never later than its backlog at its own share, nor sooner than the
 * whole queue at the whole rate for the last tier to finish.
 *
 * <p>An estimate, not a promise: arrivals of a heavier tier push a lighter tier's end later, and
 * the rate itself moves (learned limits, other instances' share).
 */
public final class TierDrain {
  private TierDrain() {}

  /**
   * Seconds from now until each tier with a queued cost is served, by the rule above.
   *
   * @param queuedCost    cost queued per tier (tiers at 0 are left out of the answer)
   * @param weights       each tier's weight; a tier not in it gets the smallest weight in it (1
   *                      when it is empty), as the fair queue gives it
   * @param ratePerSecond cost served per second; at most 0 (a lane that cannot call): no answer
   * @return seconds per tier, empty when nothing is queued or nothing is served
   */
  public static Map<String, Double> seconds(Map<String, Long> queuedCost,
      Map<String, Double> weights, double ratePerSecond) {
    Map<String, Double> out = new TreeMap<>();
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      return out;
    }
    double unknown = weights.values().stream().mapToDouble(Double::doubleValue).min().orElse(1);
    Map<String, Double> left = new HashMap<>();
    Map<String, Double> weight = new HashMap<>();
    queuedCost.forEach((tier, cost) -> {
      if (cost != null && cost > 0) {
        left.put(tier, cost.doubleValue());
        weight.put(tier, weights.getOrDefault(tier, unknown));
      }
    });
    double t = 0;
    while (!left.isEmpty()) {
      double total = sum(weight, left.keySet());
      // The next tier to finish at the shares of now: the least cost per weight left.
      String first = null;
      double dt = Double.MAX_VALUE;
      for (Map.Entry<String, Double> e : left.entrySet()) {
        double d = e.getValue() * total / (ratePerSecond * weight.get(e.getKey()));
        if (d < dt || (d == dt && e.getKey().compareTo(first) < 0)) {
          dt = d;
          first = e.getKey();
        }
      }
      t += dt;
      for (Map.Entry<String, Double> e : left.entrySet()) {
        e.setValue(e.getValue() - ratePerSecond * weight.get(e.getKey()) / total * dt);
      }
      out.put(first, t);
      left.remove(first);
      // Those that finish together with it (to rounding) finish now too.
      for (var it = left.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, Double> e = it.next();
        if (e.getValue() <= 1e-9 * Math.max(1, queuedCost.get(e.getKey()))) {
          out.put(e.getKey(), t);
          it.remove();
        }
      }
    }
    return out;
  }

  private static double sum(Map<String, Double> weight, Collection<String> tiers) {
    double s = 0;
    for (String tier : tiers) {
      s += weight.get(tier);
    }
    return s;
  }
}
