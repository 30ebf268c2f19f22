package io.sluice.dispatcher.dispatch;

import io.sluice.config.ProviderConfig;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.endpoint.TotalShares;
import io.sluice.dispatcher.fair.GlobalShare;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.ProviderTotal;
import io.sluice.dispatcher.leak.TotalLeak;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * The {@code totalRate} of per-tenant providers on this instance: the joint leak each endpoint
 * lane of such a provider claims from ({@link TotalLeak}), and, every {@value #EVERY_MILLIS} ms,
 * each busy lane's part of the total by tier weight ({@link TotalShares}), which the lane claims
 * no more than ({@link ProviderLane#shareTotal}). The consumer thread owns it; answers of the
 * leak arrive on its client's threads and only replace {@link #heard}.
 *
 * <p>Across instances as a provider's lane shares its leak ({@link GlobalShare}): every
 * {@value #EVERY_MILLIS} ms this instance publishes its busy endpoints per tier for the provider
 * ({@link LeakyBucket#busyTenants}, the hash {@code sluice:v1:{hooks}:busy}, an endpoint being
 * one tenant) and hears the sums over every instance; it then shares out its part of the total,
 * {@code instanceShare * totalRate}, among its own lanes by the tiers' local weights. Not heard
 * from for a second (Redis down or slow): it shares out the whole total, as one alone would.
 */
final class EndpointTotals {
  /** How often the parts are worked out again, as a lane publishes its busy tenants. */
  static final long EVERY_MILLIS = 250;
  /** A member not heard from for this long drops out of the sums; an answer this old is stale. */
  static final long HEARD_TTL_MILLIS = 1_000;

  /** Per provider with a total, the one its lanes opened since the last reload claim with. */
  private final Map<String, ProviderTotal> totals = new HashMap<>();
  /**
   * Per provider whose total a reload removed: its lanes opened before still claim jointly with
   * it, now each uncapped (a part of the whole), as they would be alone.
   */
  private final Map<String, ProviderTotal> removed = new HashMap<>();
  /** Where the busy endpoints per tier are published (the dispatcher's leak). */
  private final LeakyBucket leak;
  /** This instance, among those publishing. */
  private final String member = "endpoints-" + UUID.randomUUID();
  /** Per provider: the sums over every instance last heard, and when. */
  private final Map<String, Heard> heard = new ConcurrentHashMap<>();
  /** Per provider: what was published last (an empty map withdrew this instance). */
  private final Map<String, Map<String, Integer>> published = new HashMap<>();
  /** Per lane name: the part given last (for tests and logs). */
  private final Map<String, Double> parts = new HashMap<>();
  private long lastMillis = Long.MIN_VALUE / 2;

  private record Heard(Map<String, Integer> sums, long atMillis) {}

  private final DoubleSupplier paceFactor;

  /**
   * @param paceFactor the dispatcher's pace ({@code Pace#factor}): an instance that slows its lanes
   *                   down takes that share of its part of a total too, or the cut would not bite
   *                   while the total binds (its lanes' shares would still add up to it)
   */
  EndpointTotals(LeakyBucket leak, DoubleSupplier paceFactor) {
    this.leak = leak;
    this.paceFactor = paceFactor;
  }

  /** The leak an endpoint lane of {@code provider} claims from: jointly with its total, if any. */
  LeakyBucket leakOf(String provider, ProviderConfig config, LeakyBucket leak) {
    if (config.endpoints().totalRate().isEmpty()) {
      ProviderTotal old = totals.remove(provider);
      if (old != null) {
        removed.put(provider, old);
      }
      return leak;
    }
    ProviderTotal total = new ProviderTotal(provider,
        config.endpoints().totalRate().get().perSecond());
    totals.put(provider, total);
    removed.remove(provider);
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

  /** Gives each busy lane of a provider with a total its part, when due. */
  void share(long nowMillis, Supplier<Collection<ProviderLane>> lanes, Map<String, Double> weights) {
    if (totals.isEmpty() && removed.isEmpty() || nowMillis - lastMillis < EVERY_MILLIS) {
      return;
    }
    lastMillis = nowMillis;
    parts.clear();
    Map<String, List<TotalShares.Demand<ProviderLane>>> busy = new HashMap<>();
    for (ProviderLane lane : lanes.get()) {
      String provider = lane.id().provider();
      ProviderTotal gone = removed.get(provider);
      if (gone != null) {
        parts.put(lane.name(), gone.ratePerSecond());
        lane.shareTotal(gone.ratePerSecond(), gone.ratePerSecond());
      }
      if (!totals.containsKey(provider)) {
        continue;
      }
      // An endpoint lane holds one tenant: one tier, or none when nothing is queued.
      lane.busyTenantsByTier().keySet().stream().findFirst().ifPresent(tier ->
          busy.computeIfAbsent(provider, p -> new ArrayList<>())
              .add(new TotalShares.Demand<>(lane, tier, lane.drainPerSecond())));
    }
    for (String provider : totals.keySet()) {
      List<TotalShares.Demand<ProviderLane>> demands = busy.getOrDefault(provider, List.of());
      Map<String, Integer> local = new HashMap<>();
      demands.forEach(d -> local.merge(d.tier(), 1, Integer::sum));
      publish(provider, local, nowMillis);
      if (demands.isEmpty()) {
        continue;
      }
      Heard h = heard.get(provider);
      GlobalShare share = h == null || nowMillis - h.atMillis() > HEARD_TTL_MILLIS
          ? GlobalShare.alone(weights) : GlobalShare.of(weights, local, h.sums());
      double total = totals.get(provider).ratePerSecond();
      TotalShares.of(share.instanceShare() * total * paceFactor.getAsDouble(),
          share.localWeights(), demands)
          .forEach((lane, part) -> {
            parts.put(lane.name(), part);
            lane.shareTotal(part, total);
          });
    }
  }

  /** Publishes this instance's busy endpoints per tier (or withdraws it), and keeps the sums. */
  private void publish(String provider, Map<String, Integer> local, long nowMillis) {
    if (local.isEmpty() && published.getOrDefault(provider, Map.of()).isEmpty()) {
      return;
    }
    published.put(provider, Map.copyOf(local));
    try {
      leak.busyTenants(provider, member, local, HEARD_TTL_MILLIS * 1000)
          .whenComplete((sums, error) -> {
            if (error == null) {
              heard.put(provider, new Heard(Map.copyOf(sums), nowMillis));
            }
          });
    } catch (RuntimeException e) {
      // Unheard: the next round shares out the whole total, as one alone would.
    }
  }

  /** The part last given to the lane named {@code laneName}, if any. */
  Optional<Double> partOf(String laneName) {
    return Optional.ofNullable(parts.get(laneName));
  }
}
