package io.sluice.dispatcher.dispatch;

import io.sluice.config.Durations;
import io.sluice.config.ProviderConfig;
import io.sluice.config.ProviderEndpoints;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantEndpoint;
import io.sluice.dispatcher.LaneId;
import io.sluice.dispatcher.dispatch.lane.LaneOrder;
import io.sluice.dispatcher.dispatch.lane.ResultHandler;
import io.sluice.dispatcher.dispatch.lane.Settlement;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.endpoint.EndpointHealth;
import io.sluice.dispatcher.endpoint.EndpointLanes;
import io.sluice.dispatcher.endpoint.EndpointLookups;
import io.sluice.dispatcher.endpoint.GuardedEndpoint;
import io.sluice.dispatcher.feedback.LearningLimitSource;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.schemas.event.Reason;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lanes of tenants' own endpoints ({@code endpoints: perTenant}): one {@link ProviderLane} per
 * busy (provider, tenant), named {@code provider/tenant}, so each endpoint has its own leak in
 * Redis (shared by every instance, as a provider's is), its own {@code maxInFlight}, learned
 * limits, Retry-After pause and queue: one slow, failing or rate-limited endpoint holds back no
 * other. Lanes are opened by an endpoint's first event and retired idle ({@link EndpointLanes});
 * each endpoint's {@link EndpointHealth} disables it after failing for {@code disableAfter} and
 * lets one probe through after {@code probeAfter}.
 *
 * <p>The URL is the tenant's endpoint, never the event's: the one its registry record gives
 * ({@link TenantLookup}, a cache fed by the registry's changes), else the file's
 * ({@link TenantRecord#endpointOf}); a tenant without one has its event dead-lettered
 * {@code no_endpoint} without a call, and so does one whose registry endpoint the configuration
 * now refuses (logged once: never the file's URL the operator replaced). A tenant the registry
 * could not be read for (Redis slow or down, not kept) has its event deferred, no attempt spent. When a tenant's endpoint changes (a {@code tenants set}, a
 * reload), its next event opens a lane toward the new one; the lane toward the old one takes no
 * more events, finishes what it holds, and is closed once idle. The consumer thread owns this class;
 * the lanes' results arrive on the clients' threads and touch only an endpoint's health (under
 * its own monitor) and its lane (under the lane's). No code holds the health's monitor while
 * taking the lane's: a firing slot holds the lane's and asks the health.
 */
final class TenantEndpoints {
  private static final Logger LOG = LoggerFactory.getLogger(TenantEndpoints.class);
  /**
   * Live endpoint lanes per instance at most. A lane at rest is its fair queue, its schedule and a
   * few maps, a few KiB; 2,000 plans for 1,000 busy endpoints with room for as many finishing.
   */
  static final int MAX_LANES = 2_000;
  /** A lane with nothing queued or in flight for this long is retired (its Redis keys expire). */
  static final long IDLE_MILLIS = 60_000;
  private static final long RETIRE_EVERY_MILLIS = 1_000;

  /**
   * A live endpoint: its lane, its health, what it was made from ({@code timeoutNanos}: its
   * calls' timeout).
   */
  private record Live(LaneId key, TenantEndpoint endpoint, ProviderLane lane,
      EndpointHealth health, ProviderEndpoints settings, long timeoutNanos) {
    /**
     * Nothing queued or in flight, and not disabled. The health's monitor is let go before the
     * lane's is taken: a firing slot holds the lane's and asks the health ({@link #mayCall}).
     */
    boolean idle() {
      boolean disabled;
      synchronized (health) {
        disabled = health.disabled();
      }
      return !disabled && lane.idle();
    }

    boolean mayCall(long nowMillis) {
      synchronized (health) {
        return health.mayCall(nowMillis);
      }
    }

    /** Disabled, and its probe not due: an event for it now would be dead-lettered. */
    boolean refuses(long nowMillis) {
      synchronized (health) {
        return health.state() == EndpointHealth.State.PROBING
            || health.state() == EndpointHealth.State.DISABLED
            && nowMillis - health.probeAtMillis() < 0;
      }
    }
  }

  /**
   * What the endpoint lanes need from the dispatcher.
   *
   * @param lanes        builds each lane
   * @param providers    the configured providers, by name: each endpoint's calls are its
   *                     provider's {@link Provider#toward} the endpoint
   * @param settler      what becomes of every call's result, after the endpoint's health took it
   * @param disabledDead dead-letters a queued event of an endpoint disabled under
   *                     {@code whileDisabled: dead_letter}, with why
   */
  record Parts(LaneFactory lanes, Map<String, Provider> providers, LeakyBucket leak,
      LimitLearner learner, ResultHandler settler,
      BiConsumer<DispatchEntry, String> disabledDead, Clock clock) {}

  private final Parts parts;
  private final EndpointLanes<Live> live = new EndpointLanes<>(MAX_LANES, IDLE_MILLIS);
  /**
   * Lanes toward an endpoint changed while they were busy: no new events, closed once idle; at
   * most {@value #MAX_LANES} (beyond, the changed endpoint's events are deferred until some drain).
   */
  private final List<Live> retiring = new ArrayList<>();
  /**
   * Endpoints whose registry endpoint the configuration refuses, warned of once (until it passes
   * again); at most {@value #MAX_LANES} (beyond, no more warnings).
   */
  private final Set<LaneId> warnedRefused = new HashSet<>();
  /** The tenants' registry records (their endpoints over the file's). */
  private final TenantLookup registry;
  /** The providers' {@code totalRate}s: the joint leak and each busy lane's part. */
  private final EndpointTotals totals;
  private Map<String, Double> weights;
  private long lastRetired;
  /** Lanes opened so far: each one's place in the spread of first slots. */
  private long opened;
  private volatile Map<String, Integer> queued = Map.of();
  private volatile Map<String, Integer> inFlight = Map.of();

  TenantEndpoints(Parts parts, Map<String, Double> weights) {
    this(parts, weights, TenantLookup.NONE);
  }

  TenantEndpoints(Parts parts, Map<String, Double> weights, TenantLookup registry) {
    this.parts = parts;
    this.registry = registry;
    this.weights = Map.copyOf(weights);
    this.totals = new EndpointTotals(parts.leak(), parts.lanes().pace()::factor);
  }

  /** Where an event of the per-tenant provider {@code provider} goes. */
  LaneRoute route(DispatchEntry entry, ProviderConfig provider, SluiceConfig config) {
    String name = entry.event().provider();
    String tenant = entry.event().tenant();
    TenantLookup.Answer registered = registry.answer(tenant);
    if (!registered.known()) {
      // Redis slow or down and the tenant not kept: its registry endpoint may be the only one, or
      // replace the file's. Neither a dead letter nor the file's URL: back later, no attempt spent.
      return new LaneRoute.Full("the tenant registry did not answer for tenant " + tenant);
    }
    Optional<String> refused = TenantRecord.refusedEndpoint(config, name, registered.record());
    LaneId key = LaneId.endpoint(name, tenant);
    if (refused.isPresent()) {
      if (warnedRefused.size() < MAX_LANES && warnedRefused.add(key)) {
        LOG.warn("{}: the registry's endpoint is refused under the configuration now ({}); its "
            + "events are dead-lettered no_endpoint until it is set again or removed",
            key.name(), refused.get());
      }
      return new LaneRoute.Dead(Reason.NO_ENDPOINT, "the registry's endpoint of tenant " + tenant
          + " toward " + name + " fails the configuration's checks now (see the log; sluice "
          + "tenants set " + tenant + " --endpoint " + name + "=URL, or --remove-endpoint " + name
          + ")");
    }
    if (!warnedRefused.isEmpty()) {
      warnedRefused.remove(key);
    }
    Optional<TenantEndpoint> endpoint = TenantRecord.endpointOf(config, name, tenant,
        registered.record());
    if (endpoint.isEmpty()) {
      return new LaneRoute.Dead(Reason.NO_ENDPOINT, "tenant " + tenant + " has no endpoint toward " + name
          + " (tenants." + tenant + ".endpoints." + name + ", or sluice tenants set " + tenant
          + " --endpoint " + name + "=URL)");
    }
    long now = parts.clock().millis();
    Optional<Live> found = live.get(key);
    if (found.isPresent() && !found.get().endpoint().equals(endpoint.get())) {
      // The endpoint was changed (the registry, a reload): the next lane calls the new one. A
      // busy lane finishes what it holds toward the old one first, taking nothing more.
      if (found.get().lane().idle()) {
        live.remove(key);
        retire(List.of(found.get()));
      } else if (retiring.size() >= MAX_LANES) {
        // Bounded like the live lanes: endpoints changed faster than their old lanes drain.
        return new LaneRoute.Full(MAX_LANES + " lanes are finishing toward changed endpoints on this instance");
      } else {
        live.remove(key);
        retiring.add(found.get());
      }
    }
    EndpointLanes.Opened<Live> opened = live.open(key, now, Live::idle,
        () -> open(key, provider, endpoint.get()));
    opened.retired().ifPresent(l -> retire(List.of(l)));
    if (opened.full()) {
      return new LaneRoute.Full(MAX_LANES + " endpoints are busy on this instance");
    }
    Live lane = opened.lane().get();
    if (provider.endpoints().whileDisabled() == ProviderEndpoints.WhileDisabled.DEAD_LETTER
        && lane.refuses(now)) {
      return new LaneRoute.Dead(Reason.ENDPOINT_DISABLED, disabledDetail(name, tenant));
    }
    return new LaneRoute.Queue(lane.lane());
  }

  private Live open(LaneId key, ProviderConfig provider, TenantEndpoint endpoint) {
    ProviderConfig toward = provider.toward(endpoint.url(), endpoint.limitsUnder(provider));
    Provider base = parts.providers().get(key.provider()).toward(endpoint);
    Provider calls = provider.endpoints().allowPrivateNetworks() ? base
        : new GuardedEndpoint(base, endpoint.url().getHost(), EndpointLookups.system());
    EndpointHealth health = new EndpointHealth(provider.endpoints().disableAfter().toMillis(),
        provider.endpoints().probeAfter().toMillis());
    LimitSource limits = new LearningLimitSource(key.name(),
        LimitSource.fixed(new ProviderLimits(toward.limits())), parts.learner(),
        LimitLearner.ENDPOINT_REFRESH_MILLIS);
    EndpointResults results = new EndpointResults(key, health, provider.endpoints(),
        provider.timeout().toNanos());
    ProviderLane lane = parts.lanes().open(key, provider, weights, limits, calls,
        totals.leakOf(key.provider(), provider, parts.leak()), results);
    totals.opened(key.provider(), lane);
    Live made = new Live(key, endpoint, lane, health, provider.endpoints(),
        provider.timeout().toNanos());
    lane.gate(() -> made.mayCall(parts.clock().millis()));
    lane.oneTenant();
    lane.startAfter(EndpointLanes.firstClaimDelayNanos(opened++,
        (long) (1e9 / limits.current().ratePerSecond())));
    return made;
  }

  /**
   * A call of an endpoint came back: its health takes the result first, then the dispatcher's
   * settler. A timeout of a call that was in flight while this dispatcher ran late (it started at
   * most a timeout ago) may be this process's own doing, its answer waiting for a CPU: it says
   * nothing of the endpoint ({@link EndpointHealth#take(ProviderResult, long, boolean)}). An
   * endpoint disabled now holds its lane until its probe is due and, under
   * {@code whileDisabled: dead_letter}, has its queued events dead-lettered: orders its lane
   * carries out ({@link LaneOrder}).
   */
  private final class EndpointResults implements ResultHandler {
    private final LaneId key;
    private final EndpointHealth health;
    private final ProviderEndpoints settings;
    private final long timeoutNanos;

    EndpointResults(LaneId key, EndpointHealth health, ProviderEndpoints settings,
        long timeoutNanos) {
      this.key = key;
      this.health = health;
      this.settings = settings;
      this.timeoutNanos = timeoutNanos;
    }

    @Override
    public Settlement settle(LaneId lane, DispatchEntry entry, ProviderResult result,
        long claimedAt) {
      List<LaneOrder> orders = new ArrayList<>(healthOrders(result));
      Settlement settled = parts.settler().settle(lane, entry, result, claimedAt);
      orders.addAll(settled.first());
      return Settlement.of(orders, settled::complete);
    }

    private List<LaneOrder> healthOrders(ProviderResult result) {
      boolean ours = false;
      if (result instanceof ProviderResult.TimedOut) {
        long now = parts.lanes().nanoTime().getAsLong();
        ours = parts.lanes().pace().lateSince(now - timeoutNanos, now);
      }
      EndpointHealth.Change change;
      synchronized (health) {
        change = health.take(result, parts.clock().millis(), ours);
      }
      String lane = key.name();
      if (change == EndpointHealth.Change.ENABLED) {
        LOG.info("{}: endpoint enabled again: it answered", lane);
        parts.lanes().listener().endpointEnabled(key.provider());
        return List.of();
      }
      if (change != EndpointHealth.Change.DISABLED && change != EndpointHealth.Change.PROBE_FAILED) {
        return List.of();
      }
      if (change == EndpointHealth.Change.DISABLED) {
        LOG.warn("{}: endpoint disabled, its calls failed for {} or more (last: {}); events {} "
            + "until it answers a probe in {}", lane, Durations.format(settings.disableAfter()),
            failure(result), waitOrDead(settings), Durations.format(settings.probeAfter()));
      } else {
        LOG.warn("{}: endpoint probe failed ({}); disabled for another {}", lane, failure(result),
            Durations.format(settings.probeAfter()));
      }
      parts.lanes().listener().endpointDisabled(key.provider());
      LaneOrder hold = new LaneOrder.Hold(settings.probeAfter().toMillis());
      if (settings.whileDisabled() != ProviderEndpoints.WhileDisabled.DEAD_LETTER) {
        return List.of(hold);
      }
      String detail = disabledDetail(key.provider(), key.tenant());
      return List.of(hold, new LaneOrder.DropQueued(x -> parts.disabledDead().accept(x, detail)));
    }
  }

  private static String failure(ProviderResult r) {
    if (r instanceof ProviderResult.Answered a) {
      return "status " + a.status();
    }
    return r instanceof ProviderResult.TimedOut ? "timed out" : "no connection";
  }

  private static String waitOrDead(ProviderEndpoints settings) {
    return settings.whileDisabled() == ProviderEndpoints.WhileDisabled.WAIT ? "wait"
        : "are dead-lettered endpoint_disabled";
  }

  private static String disabledDetail(String provider, String tenant) {
    return "the endpoint of tenant " + tenant + " toward " + provider + " is disabled (it kept "
        + "failing; whileDisabled: dead_letter)";
  }

  /** Retires idle lanes, once a second; refreshes the gauges. Consumer thread. */
  void tick(long nowMillis) {
    totals.share(nowMillis, this::lanes, weights);
    if (nowMillis - lastRetired < RETIRE_EVERY_MILLIS) {
      return;
    }
    lastRetired = nowMillis;
    retire(live.retireIdle(nowMillis, Live::idle));
    // A lane toward a changed endpoint is closed once it holds nothing, disabled or not: no
    // event comes to it any more, so waiting for a probe would only keep it for ever.
    List<Live> done = new ArrayList<>();
    retiring.removeIf(l -> l.lane().idle() && done.add(l));
    retire(done);
    Map<String, Integer> q = new HashMap<>();
    Map<String, Integer> f = new HashMap<>();
    for (Live l : all()) {
      q.merge(l.key().provider(), l.lane().queued(), Integer::sum);
      f.merge(l.key().provider(), l.lane().inFlight(), Integer::sum);
    }
    queued = Map.copyOf(q);
    inFlight = Map.copyOf(f);
  }

  /**
   * Closes retired lanes and, unless a live lane toward a changed endpoint still holds the key,
   * forgets what was learned about them ({@link LimitLearner#forget}): the learner's maps would
   * otherwise grow by an entry per endpoint ever busy. The store keeps it for the next lane.
   */
  private void retire(List<Live> lanes) {
    for (Live l : lanes) {
      l.lane().close();
      if (live.get(l.key()).isEmpty()) {
        parts.learner().forget(l.key().name());
      }
    }
  }

  /** Lanes toward endpoints now live, retiring ones included. Consumer thread. */
  int liveLanes() {
    return live.size() + retiring.size();
  }

  /** Every live endpoint lane, those finishing toward a changed endpoint included. */
  List<ProviderLane> lanes() {
    List<ProviderLane> lanes = new ArrayList<>();
    all().forEach(l -> lanes.add(l.lane()));
    return lanes;
  }

  private List<Live> all() {
    List<Live> all = new ArrayList<>(live.lanes());
    all.addAll(retiring);
    return all;
  }

  /** Lanes finishing toward an endpoint that changed while they were busy. */
  int retiring() {
    return retiring.size();
  }

  /** The live lane toward the endpoint {@code id}, if any. */
  Optional<ProviderLane> get(LaneId id) {
    return live.get(id).map(Live::lane);
  }

  /** Events queued per per-tenant provider, as of the last tick (gauges, any thread). */
  Map<String, Integer> queued() {
    return queued;
  }

  /** Calls in flight per per-tenant provider, as of the last tick (gauges, any thread). */
  Map<String, Integer> inFlight() {
    return inFlight;
  }

  /** The part of its provider's total last given to the lane {@code laneName} (tests). */
  Optional<Double> partOf(String laneName) {
    return totals.partOf(laneName);
  }

  /** Live lanes now. */
  int size() {
    return live.size();
  }

  void reweigh(Map<String, Double> next) {
    weights = Map.copyOf(next);
    all().forEach(l -> l.lane().reweigh(weights));
  }

  /** Nothing of its own to stop: the lanes are closed with the others, lookups are shared. */
  void close() {
  }
}
