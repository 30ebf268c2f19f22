package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.fair.TierDrain;
import java.util.HashMap;
import java.util.Map;

/**
 * What waits in one lane's queue: per tier its queued cost, when its oldest event was first seen
 * and in how many seconds it is all served ({@link TierDrain}, at the lane's drain rate and
 * weights); per tenant when its oldest queued event was first seen. Instants are epoch ms of
 * {@code sluice-first-seen}; an entry without one counts in the cost only.
 */
public record LaneBacklog(Map<String, Long> costByTier, Map<String, Long> oldestByTier,
    Map<String, Long> oldestByTenant, Map<String, Double> drainSecondsByTier) {

  /** Gathers a queue's entries, one {@link #add} each. */
  static final class Builder {
    private final Map<String, Long> cost = new HashMap<>();
    private final Map<String, Long> oldestByTier = new HashMap<>();
    private final Map<String, Long> oldestByTenant = new HashMap<>();

    void add(String tier, String tenant, int entryCost, Long firstSeen) {
      cost.merge(tier, (long) entryCost, Long::sum);
      if (firstSeen != null) {
        oldestByTier.merge(tier, firstSeen, Math::min);
        oldestByTenant.merge(tenant, firstSeen, Math::min);
      }
    }

    LaneBacklog build(Map<String, Double> weights, double ratePerSecond) {
      return new LaneBacklog(Map.copyOf(cost), Map.copyOf(oldestByTier),
          Map.copyOf(oldestByTenant), TierDrain.seconds(cost, weights, ratePerSecond));
    }
  }
}
