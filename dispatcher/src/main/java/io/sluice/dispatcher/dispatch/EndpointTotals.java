package io.sluice.dispatcher.dispatch;

import io.sluice.config.ProviderConfig;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.endpoint.TotalShares;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.ProviderTotal;
import io.sluice.dispatcher.leak.TotalLeak;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The {@code totalRate} of per-tenant providers on this instance: the joint leak each endpoint
 * lane of such a provider claims from ({@link TotalLeak}), and, every {@value #EVERY_MILLIS} ms,
 * each busy lane's part of the total by tier weight ({@link TotalShares}), which the lane claims
 * no more than ({@link ProviderLane#shareTotal}). The consumer thread owns it.
 *
 * <p>The parts are worked out over this instance's busy lanes. Several instances each share out
 * the whole total among their own lanes, and the total line itself hands its slots to whichever
 * claims first: the bound holds across instances, the split by weight within each.
 */
final class EndpointTotals {
  /** How often the parts are worked out again, as a lane publishes its busy tenants. */
  static final long EVERY_MILLIS = 250;

  /** Per provider with a total, the one its lanes opened since the last reload claim with. */
  private final Map<String, ProviderTotal> totals = new HashMap<>();
  private long lastMillis = Long.MIN_VALUE / 2;

  /** The leak an endpoint lane of {@code provider} claims from: jointly with its total, if any. */
  LeakyBucket leakOf(String provider, ProviderConfig config, LeakyBucket leak) {
    if (config.endpoints().totalRate().isEmpty()) {
      totals.remove(provider);
      return leak;
    }
    ProviderTotal total = new ProviderTotal(provider,
        config.endpoints().totalRate().get().perSecond());
    totals.put(provider, total);
    return new TotalLeak(leak, total);
  }

  /**
   * A lane of {@code provider} was opened: under a total it uses its slots no later than the
   * total's spacing allows from its first claim, uncapped until its first part.
   */
  void opened(String provider, ProviderLane lane) {
    ProviderTotal total = totals.get(provider);
    if (total != null) {
      lane.shareTotal(total.ratePerSecond(), total.ratePerSecond());
    }
  }

  /** The total in force for {@code provider}'s new lanes, if it has one (metrics). */
  java.util.Optional<ProviderTotal> totalOf(String provider) {
    return java.util.Optional.ofNullable(totals.get(provider));
  }

  /** Gives each busy lane of a provider with a total its part, when due. */
  void share(long nowMillis, Supplier<Collection<ProviderLane>> lanes, Map<String, Double> weights) {
    if (totals.isEmpty() || nowMillis - lastMillis < EVERY_MILLIS) {
      return;
    }
    lastMillis = nowMillis;
    Map<String, List<TotalShares.Demand<ProviderLane>>> busy = new HashMap<>();
    for (ProviderLane lane : lanes.get()) {
      String provider = lane.name().substring(0, Math.max(0, lane.name().indexOf('/')));
      if (!totals.containsKey(provider)) {
        continue;
      }
      // An endpoint lane holds one tenant: one tier, or none when nothing is queued.
      lane.busyTenantsByTier().keySet().stream().findFirst().ifPresent(tier ->
          busy.computeIfAbsent(provider, p -> new ArrayList<>())
              .add(new TotalShares.Demand<>(lane, tier, lane.drainPerSecond())));
    }
    busy.forEach((provider, demands) -> {
      double total = totals.get(provider).ratePerSecond();
      TotalShares.of(total, weights, demands).forEach((lane, part) -> lane.shareTotal(part, total));
    });
  }
}
