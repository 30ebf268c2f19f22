package io.sluice.dispatcher.fair;

import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One instance's part of a provider that several dispatcher instances share, so that weighted
 * fairness holds across all of them and not only inside each.
 *
 * <h2>Why an instance needs this</h2>
 * Each instance's {@link FairQueue} shares out the leak slots <em>it</em> claims among the tenants
 * of the partitions <em>it</em> holds. Tenants reach instances by the hash of their partition, so
 * without more, the instance that holds 3 of a tier's 10 busy tenants gives each of them what the
 * other gives each of its 7, whenever both claim slots as fast as the leak allows: the three get
 * more than twice as much. The leak stays exact; only the split is wrong.
 *
 * <h2>The rule</h2>
 * Fairness is defined over the whole provider, as if one {@link FairQueue} held every instance's
 * entries: each busy tier {@code k} gets {@code w_k / W} of the leak, where {@code W} is the sum of
 * the weights of the tiers busy anywhere, and a busy tier's part is split equally among its busy
 * tenants, wherever they are. Each instance publishes how many busy tenants of each tier it holds,
 * {@code n_k}, and reads the sums over all instances, {@code N_k} (one small Redis hash per
 * provider). Then, for this instance:
 * <pre>
 *   local weight of tier k   w'_k = w_k * n_k / N_k
 *   share of the leak        s    = (sum over k of w'_k) / W
 * </pre>
 * An instance that claims {@code s} of the leak and splits it among its tiers by {@code w'_k}
 * gives every busy tenant of tier {@code k} exactly {@code (s * w'_k / sum w') = w_k / (N_k * W)}
 * of the leak, the same on every instance. With one instance, {@code n_k = N_k}, so the local
 * weights are the configured ones and {@code s = 1}.
 *
 * <p>Pure: the counts are passed in, and it decides nothing about time. The claim side (how a
 * share caps the slots an instance claims, and why that never idles the leak) is the lane's.
 *
 * @param instanceShare this instance's part of the leak, in [0, 1]; 1 when it is alone (or no
 *                      other instance has anything queued)
 * @param localWeights  the weight of each tier for this instance's fair queue: the configured
 *                      weights, with every tier this instance holds busy tenants of scaled by
 *                      {@code n_k / N_k}
 */
public record GlobalShare(double instanceShare, Map<String, Double> localWeights) {

  /**
   * @param configured the configured weight of each tier, at least one; a tier not in it weighs
   *                   the smallest configured weight, as in {@link FairQueue}
   * @param local      busy tenants per tier on this instance ({@link FairQueue#busyTenantsByTier})
   * @param global     busy tenants per tier summed over every live instance, this one included;
   *                   a count below the local one (an answer older than the local count) is read
   *                   as the local one
   */
  public static GlobalShare of(Map<String, Double> configured, Map<String, Integer> local,
      Map<String, Integer> global) {
    double smallest = Collections.min(configured.values());
    ToDoubleFunction<String> weightOf = tier -> configured.getOrDefault(tier, smallest);
    double busyWeight = 0;
    Map<String, Integer> everywhere = new HashMap<>(global);
    local.forEach((tier, n) -> everywhere.merge(tier, n, Math::max));
    for (Map.Entry<String, Integer> e : everywhere.entrySet()) {
      if (e.getValue() > 0) {
        busyWeight += weightOf.applyAsDouble(e.getKey());
      }
    }
    Map<String, Double> weights = new HashMap<>(configured);
    double mine = 0;
    for (Map.Entry<String, Integer> e : local.entrySet()) {
      int n = e.getValue();
      if (n <= 0) {
        continue;
      }
      double scaled = weightOf.applyAsDouble(e.getKey()) * n / everywhere.get(e.getKey());
      weights.put(e.getKey(), scaled);
      mine += scaled;
    }
    double share = busyWeight == 0 ? 1 : Math.min(1, mine / busyWeight);
    return new GlobalShare(share, Map.copyOf(weights));
  }

  /** This instance is alone, or only it has anything queued: the configured weights, all of it. */
  public static GlobalShare alone(Map<String, Double> configured) {
    return new GlobalShare(1, Map.copyOf(configured));
  }
}
