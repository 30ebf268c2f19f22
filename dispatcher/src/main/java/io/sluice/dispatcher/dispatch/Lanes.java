package io.sluice.dispatcher.dispatch;

import io.sluice.config.ProviderConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.feedback.LearningLimitSource;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.schemas.event.Reason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Every lane of this dispatcher, by {@link LaneId}: the providers' own lanes, made at start, and
 * the lanes of tenants' own endpoints ({@link TenantEndpoints}), opened by an endpoint's first
 * event and retired idle. Both kinds are built by one {@link LaneFactory} and reached through
 * {@link #route}. The consumer thread owns it (gauges read copies).
 */
final class Lanes implements AutoCloseable {
  private final Map<String, ProviderLane> providers = new LinkedHashMap<>();
  private final TenantEndpoints endpoints;

  /**
   * @param config       the providers: a lane each, but a per-tenant provider's lanes are its
   *                     endpoints', opened when needed
   * @param calls        each provider's implementation, by name
   * @param limitSources each provider's configured limits, asked on every claim
   */
  Lanes(SluiceConfig config, LaneFactory factory, Map<String, Provider> calls,
      Function<String, LimitSource> limitSources, TenantEndpoints.Parts endpointParts,
      Map<String, Double> weights, TenantLookup registry) {
    this.endpoints = new TenantEndpoints(endpointParts, weights, registry);
    for (Map.Entry<String, ProviderConfig> p : config.providers().entrySet()) {
      Provider provider = calls.get(p.getKey());
      if (provider == null) {
        throw new IllegalArgumentException("no provider implementation for " + p.getKey());
      }
      if (p.getValue().perTenant()) {
        continue; // its endpoints' lanes are opened by their first events
      }
      LimitSource limits = new LearningLimitSource(p.getKey(), limitSources.apply(p.getKey()),
          endpointParts.learner());
      providers.put(p.getKey(), factory.open(LaneId.provider(p.getKey()), p.getValue(), weights,
          limits, provider, endpointParts.leak(), endpointParts.settler()));
    }
  }

  /**
   * The lane an entry goes to under {@code config} (the configuration now): its provider's, or
   * for a per-tenant provider its tenant's endpoint's; else why it gets none.
   */
  LaneRoute route(DispatchEntry entry, SluiceConfig config) {
    String provider = entry.event().provider();
    ProviderLane own = providers.get(provider);
    if (own != null) {
      return new LaneRoute.Queue(own);
    }
    ProviderConfig pc = config.providers().get(provider);
    if (pc == null || !pc.perTenant()) {
      return new LaneRoute.Dead(Reason.UNKNOWN_PROVIDER, "provider " + provider + " has no lane "
          + "on this dispatcher (added by a reload: it starts with the next start)");
    }
    return endpoints.route(entry, pc, config);
  }

  /** Each tier's weight in the lanes' fair queues, as {@code config} gives them. */
  static Map<String, Double> weights(SluiceConfig config) {
    Map<String, Double> weights = new HashMap<>();
    config.tiers().forEach((tier, t) -> weights.put(tier, t.weight()));
    return weights;
  }

  /** The providers' lanes and the live lanes of tenants' endpoints. */
  List<ProviderLane> all() {
    List<ProviderLane> all = new ArrayList<>(providers.values());
    all.addAll(endpoints.lanes());
    return all;
  }

  /** The lane of this name now, if live. */
  Optional<ProviderLane> get(LaneId id) {
    if (!id.isEndpoint()) {
      return Optional.ofNullable(providers.get(id.provider()));
    }
    return endpoints.get(id);
  }

  /** Events queued in the lane named {@code name} (0 if none is live). */
  int queuedOf(String name) {
    return get(LaneId.parse(name)).map(ProviderLane::queued).orElse(0);
  }

  /** Takes out of every lane the queued entries {@code which} selects (their calls not started). */
  List<DispatchEntry> drop(Predicate<DispatchEntry> which) {
    List<DispatchEntry> dropped = new ArrayList<>();
    for (ProviderLane lane : all()) {
      dropped.addAll(lane.drop(which));
    }
    return dropped;
  }

  /** Live lanes toward tenants' endpoints, retiring ones included. */
  int endpointLanes() {
    return endpoints.liveLanes();
  }

  /** Retires idle endpoint lanes, shares providers' totals, refreshes gauges. Consumer thread. */
  void tick(long nowMillis) {
    endpoints.tick(nowMillis);
  }

  /** New tier weights for every lane's fair queue. */
  void reweigh(Map<String, Double> weights) {
    providers.values().forEach(l -> l.reweigh(weights));
    endpoints.reweigh(weights);
  }

  /** Queued events per provider (gauges). */
  Map<String, Integer> queued() {
    Map<String, Integer> depths = new LinkedHashMap<>();
    providers.forEach((name, lane) -> depths.put(name, lane.queued()));
    depths.putAll(endpoints.queued());
    return depths;
  }

  /** Calls in flight per provider (gauges). */
  Map<String, Integer> inFlight() {
    Map<String, Integer> calls = new LinkedHashMap<>();
    providers.forEach((name, lane) -> calls.put(name, lane.inFlight()));
    calls.putAll(endpoints.inFlight());
    return calls;
  }

  /** Claims no more slots in any lane; calls in flight finish on their own. */
  void closeLanes() {
    all().forEach(ProviderLane::close);
  }

  /** Closes every lane and stops the endpoints' look-ups. */
  @Override
  public void close() {
    closeLanes();
    endpoints.close();
  }
}
