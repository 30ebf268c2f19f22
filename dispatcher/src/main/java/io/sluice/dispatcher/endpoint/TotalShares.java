package io.sluice.dispatcher.endpoint;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a per-tenant provider's {@code totalRate} is shared by its busy endpoints on this instance:
 * by tier weight across tiers, equally across a tier's endpoints (each endpoint is one tenant's),
 * as a provider's own lane shares its leak ({@link io.sluice.dispatcher.fair.FairQueue}). Pure.
 *
 * <h2>Why shares, and how</h2>
 * Every call of an endpoint takes a slot of its own leak and one of the provider's total line at
 * once ({@link io.sluice.dispatcher.leak.ProviderTotal}). The total line hands its slots to
 * whichever lane claims first, so when the total binds, endpoints would split it by how often
 * they ask, not by weight. So each busy endpoint lane is given a part of the total in calls per
 * second, and claims no more than that (plus 2%: {@code ClaimAllowance}, as a lane's share of a
 * leak other instances use too). The parts are max-min fair with ceilings, in two levels:
 * <ol>
 *   <li>tiers by weight: tier {@code k} gets {@code w_k / W} of the total, but no more than its
 *       endpoints can use (the sum of their ceilings); what a tier cannot use goes to the others
 *       by weight;</li>
 *   <li>inside a tier, equal parts for its busy endpoints, none above its own ceiling; what one
 *       cannot use goes to its tier-mates.</li>
 * </ol>
 * An endpoint's ceiling is what it can take on its own: its leak's rate, or fewer when its slow
 * calls fill {@code maxInFlight}. Worked: a total of 40/s, tiers gold (3) and std (1) with ten
 * busy endpoints each at 5/s: gold gets 30/s (3/s each), std 10/s (1/s each). With only two gold
 * endpoints busy: gold can use 10/s, so it gets 10 and std the other 30 (3/s each).
 *
 * <p>Unknown tiers weigh the smallest configured weight, as in the fair queue. The parts never
 * sum above the total; they sum below it only when every busy endpoint is at its ceiling.
 */
public final class TotalShares {
  private TotalShares() {}

  /**
   * A busy endpoint: its key, its tenant's tier, and the calls per second it can take at most.
   */
  public record Demand<K>(K key, String tier, double ceilingPerSecond) {}

  /** Each endpoint's part of {@code totalPerSecond}, in calls per second. */
  public static <K> Map<K, Double> of(double totalPerSecond, Map<String, Double> tierWeights,
      Collection<Demand<K>> demands) {
    double smallest = tierWeights.values().stream().mapToDouble(Double::doubleValue).min()
        .orElse(1.0);
    Map<String, List<Demand<K>>> byTier = new LinkedHashMap<>();
    demands.forEach(d -> byTier.computeIfAbsent(d.tier(), t -> new ArrayList<>()).add(d));
    List<String> tiers = new ArrayList<>(byTier.keySet());
    double[] weights = new double[tiers.size()];
    double[] ceilings = new double[tiers.size()];
    for (int i = 0; i < tiers.size(); i++) {
      weights[i] = tierWeights.getOrDefault(tiers.get(i), smallest);
      ceilings[i] = byTier.get(tiers.get(i)).stream().mapToDouble(Demand::ceilingPerSecond).sum();
    }
    double[] tierParts = fill(totalPerSecond, weights, ceilings);
    Map<K, Double> parts = new HashMap<>();
    for (int i = 0; i < tiers.size(); i++) {
      List<Demand<K>> members = byTier.get(tiers.get(i));
      double[] equal = new double[members.size()];
      Arrays.fill(equal, 1.0);
      double[] memberParts = fill(tierParts[i], equal,
          members.stream().mapToDouble(Demand::ceilingPerSecond).toArray());
      for (int j = 0; j < members.size(); j++) {
        parts.put(members.get(j).key(), memberParts[j]);
      }
    }
    return parts;
  }

  /**
   * Water-filling: {@code amount} split in proportion to {@code weights}, none above its
   * ceiling, what a capped one leaves going to the others in proportion.
   */
  static double[] fill(double amount, double[] weights, double[] ceilings) {
    double[] parts = new double[weights.length];
    boolean[] fixed = new boolean[weights.length];
    double left = amount;
    while (true) {
      double open = 0;
      for (int i = 0; i < weights.length; i++) {
        open += fixed[i] ? 0 : weights[i];
      }
      if (open <= 0) {
        return parts;
      }
      double level = Math.max(0, left) / open;
      boolean capped = false;
      for (int i = 0; i < weights.length; i++) {
        if (!fixed[i] && ceilings[i] <= level * weights[i]) {
          parts[i] = ceilings[i];
          fixed[i] = true;
          left -= ceilings[i];
          capped = true;
        }
      }
      if (!capped) {
        for (int i = 0; i < weights.length; i++) {
          if (!fixed[i]) {
            parts[i] = level * weights[i];
          }
        }
        return parts;
      }
    }
  }
}
