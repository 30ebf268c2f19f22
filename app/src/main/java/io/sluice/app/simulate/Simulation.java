package io.sluice.app.simulate;

import io.sluice.config.ProviderConfig;
import io.sluice.config.Quota;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import io.sluice.config.TierConfig;
import io.sluice.dispatcher.fair.FairQueue;
import io.sluice.dispatcher.fair.PriorityOrder;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.leak.SlotClaim;
import io.sluice.gate.AdmissionEta;
import io.sluice.gate.DeliveryTime;
import io.sluice.gate.limiter.AcquireRequest;
import io.sluice.gate.limiter.Acquisition;
import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.BucketState;
import io.sluice.gate.limiter.LimiterDecision;
import io.sluice.gate.limiter.TokenBucketMath;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.validation.EventRules;
import io.sluice.schemas.validation.ValidationResult;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One configuration's run over recorded events, on a virtual clock: a discrete-event simulation
 * whose decisions are the product's own classes, fed the virtual time.
 *
 * <ol>
 *   <li><b>Arrival</b> (the record's timestamp): {@link EventRules} (invalid, unknown provider,
 *       cost) and the tier ({@code tenants.<id>.tier}, else {@code defaultTier}, else
 *       {@code unknown_tenant}); an event asking for a time ({@code deliverAt}, {@code delay})
 *       waits unpaid until it ({@link DeliveryTime}), as the gate sends it round the ladder.</li>
 *   <li><b>Gate</b>: the tenant's (provider, tenant) bucket, {@link TokenBucketMath} (the mirror of
 *       {@code token_bucket.lua}) at the virtual now: admitted now, reserved (ready at its last
 *       unit's due time), or queued beyond the horizon (back at its ticket's turn, charged as a
 *       holder); dead {@code deadline_unreachable} when {@link AdmissionEta} says its quota brings it
 *       after its deadline.</li>
 *   <li><b>Dispatcher</b>, per provider: the events that are ready wait in a {@link FairQueue}
 *       (tiers by weight, tenants equal, a tenant's own by {@link PriorityOrder}), and leave one
 *       per slot of the provider's leak ({@link LocalLeakyBucket}, {@code LeakMath}, at the
 *       configured rate, the virtual clock passed in). An event past its deadline when its turn
 *       comes is dead {@code expired}; every other call succeeds at once.</li>
 * </ol>
 *
 * <p>The pipeline's own delay (consumer polls, transactions, the relay's hops) only as a constant
 * given to it ({@code --pipeline-delay}). Not modelled, so a simulation is a lower bound of real
 * lateness: provider answers (429,
 * 5xx, time-outs, their retries and the rate cuts they cause) and call latency
 * ({@code maxInFlight}), limits beyond the rate (windows, concurrency, {@code totalRate}),
 * learned limits, quota rules beyond the (provider, tenant) quota (an overall budget,
 * per-attribute rules, tier budgets), the gate's leases (every event asks its own units), shadow
 * mode's counts (a shadow tenant is admitted at once), ordering keys, pauses, parking and the
 * dispatcher's buffer bound, and several instances sharing a provider. Not thread-safe.
 */
public final class Simulation {
  private static final int GATE = 0;
  private static final int READY = 1;
  private static final int PUMP = 2;

  private final SluiceConfig config;
  private final EventRules rules;
  private final long horizonMicros;
  private final Map<String, Double> weights = new HashMap<>();
  private final PriorityOrder order;
  private final Timeline<Object> timeline = new Timeline<>();
  private final Map<String, Lane> lanes = new HashMap<>();
  /** Per tenant seen: its tally, and what the configuration says of it, looked up once. */
  private final Map<String, Tenant> tenants = new HashMap<>();
  private final Map<String, Tally> tiers = new HashMap<>();
  private final Map<String, TenantConfig> listed;
  private final int maxTenants;
  private final long pipelineDelayMicros;
  private final LocalLeakyBucket leak;
  private final Tally unattributed = new Tally();
  private long now = Long.MIN_VALUE;
  private long events;
  private long firstMicros = Long.MIN_VALUE;

  /**
   * @param maxTenants the most distinct tenants it keeps a tally for; beyond them a tenant's
   *                   events are refused ({@link TooManyTenants}), so a hostile file cannot grow
   *                   its memory without bound
   */
  public Simulation(SluiceConfig config, int maxTenants) {
    this(config, maxTenants, 0);
  }

  /**
   * @param pipelineDelayMicros the pipeline's own delay ({@code --pipeline-delay}): how long after
   *                            its record's time an event reaches the gate, and after the time it
   *                            asked for the relay hands it on; added to every event's way, its
   *                            lateness still counted from its record's time (or the time it asked for)
   */
  public Simulation(SluiceConfig config, int maxTenants, long pipelineDelayMicros) {
    if (pipelineDelayMicros < 0) {
      throw new IllegalArgumentException("the pipeline delay cannot be negative");
    }
    this.pipelineDelayMicros = pipelineDelayMicros;
    this.config = config;
    this.rules = new EventRules(config);
    this.horizonMicros = config.reservationHorizon().toNanos() / 1000;
    for (Map.Entry<String, TierConfig> t : config.tiers().entrySet()) {
      weights.put(t.getKey(), t.getValue().weight());
    }
    this.order = new PriorityOrder(config.dispatcher().priorityAging());
    this.listed = config.tenants();
    this.maxTenants = maxTenants;
    this.leak = new LocalLeakyBucket(LeakConfig.of(config.dispatcher()), 1, () -> now);
  }

  /** A tenant beyond the simulation's bound. */
  public static final class TooManyTenants extends RuntimeException {
    TooManyTenants(int max) {
      super("more than " + max + " distinct tenants (--max-tenants)");
    }
  }

  /**
   * One recorded event, arriving at {@code atMicros}; arrivals come in time order (an earlier one
   * is taken as arriving now, as the gate would read it now).
   *
   * @param parsed     the value as the event contract reads it ({@code EventValidator})
   * @param valueBytes the value's size, for {@code gate.maxPayloadBytes}
   */
  public void arrive(long atMicros, ValidationResult parsed, int valueBytes) {
    // It reaches the gate the pipeline's delay after its record's time: every arrival as much, so
    // they stay in order and the clock moves to the gate's time.
    long atGate = atMicros + pipelineDelayMicros;
    advanceTo(atGate);
    now = Math.max(now, atGate);
    if (firstMicros == Long.MIN_VALUE) {
      firstMicros = now - pipelineDelayMicros;
    }
    events++;
    ValidationResult checked = parsed instanceof ValidationResult.Valid v ? rules.check(v.event(), valueBytes) : parsed;
    if (checked instanceof ValidationResult.Invalid invalid) {
      String tenant = parsed instanceof ValidationResult.Valid v ? v.event().tenant() : null;
      (tenant == null ? unattributed : tenant(tenant).tally).dead(invalid.reason(), false);
      return;
    }
    WorkEvent event = ((ValidationResult.Valid) checked).event();
    Tenant tenant = tenant(event.tenant());
    if (tenant.tier == null) {
      tenant.tally.dead(Reason.UNKNOWN_TENANT, false);
      return;
    }
    ProviderConfig provider = config.providers().get(event.provider());
    Pending p = new Pending(tenant, lane(event.provider()), event.cost(), event.priorityClass().rank(),
        event.deadline(), now - pipelineDelayMicros);
    DeliveryTime.Verdict when = DeliveryTime.of(event, event.provider(), provider.intake().maxDelay(), now / 1000);
    if (when instanceof DeliveryTime.Refused refused) {
      dead(p, refused.reason());
    } else if (when instanceof DeliveryTime.Later later) {
      p.sinceMicros = later.notBeforeMillis() * 1000;
      at(p.sinceMicros + pipelineDelayMicros, GATE, p);
    } else {
      gate(p);
    }
  }

  /** Runs the simulation on until every event is called or dead, and says what came of it. */
  public Outcome finish() {
    advanceTo(Long.MAX_VALUE);
    Map<String, ProviderTally> providers = new TreeMap<>();
    lanes.forEach((name, lane) -> providers.put(name, lane.tally));
    Map<String, Tally> byTenant = new TreeMap<>();
    tenants.forEach((name, t) -> byTenant.put(name, t.tally));
    return new Outcome(events, byTenant, new TreeMap<>(tiers), providers, unattributed,
        firstMicros == Long.MIN_VALUE ? 0 : now - firstMicros);
  }

  /**
   * What a simulation came to.
   *
   * @param events     events read
   * @param tenants    per tenant, by id
   * @param tiers      per tier, by name
   * @param providers  per provider, by name
   * @param unattributed dead letters of values with no readable tenant
   * @param spanMicros virtual time from the first arrival to the last call or dead letter
   */
  public record Outcome(long events, Map<String, Tally> tenants, Map<String, Tally> tiers,
                        Map<String, ProviderTally> providers, Tally unattributed, long spanMicros) {}

  private Tenant tenant(String id) {
    Tenant t = tenants.get(id);
    if (t == null) {
      if (tenants.size() >= maxTenants) {
        throw new TooManyTenants(maxTenants);
      }
      TenantConfig entry = listed.get(id);
      t = new Tenant(id, entry, config.tierOf(entry).orElse(null), tiers);
      tenants.put(id, t);
    }
    return t;
  }

  private void advanceTo(long limitMicros) {
    while (!timeline.isEmpty() && timeline.firstAt() < limitMicros) {
      now = Math.max(now, timeline.firstAt());
      int kind = timeline.firstKind();
      Object item = timeline.firstItem();
      timeline.removeFirst();
      switch (kind) {
        case GATE -> gate((Pending) item);
        case READY -> ready((Pending) item);
        default -> pump((Lane) item);
      }
    }
  }

  private void at(long atMicros, int kind, Object item) {
    timeline.add(atMicros, kind, item);
  }

  /** The gate's limit step for one event at the virtual now. */
  private void gate(Pending p) {
    Bucket bucket = bucket(p.lane, p.tenant);
    if (bucket == NO_QUOTA) {
      dead(p, Reason.UNKNOWN_TENANT);
      return;
    }
    if (bucket.shadow) {
      ready(p);
      return;
    }
    int cost = p.cost;
    AcquireRequest request = p.holder ? AcquireRequest.holding(cost) : AcquireRequest.single(cost);
    TokenBucketMath.Step step = TokenBucketMath.acquire(bucket.state, bucket.spec, request, now);
    bucket.state = step.next();
    Acquisition a = step.acquisition();
    LimiterDecision decision;
    if (!a.isGranted()) {
      decision = new LimiterDecision.Queued(ceilMillis(a.nowMicros() + a.ticketMicros()));
    } else {
      long due = a.dueOfUnit(cost, bucket.spec);
      decision = due <= a.nowMicros() ? new LimiterDecision.Admit(a.nowMicros() / 1000)
          : new LimiterDecision.Reserved(ceilMillis(due));
    }
    long eta = AdmissionEta.of(decision, bucket.spec, false);
    if (AdmissionEta.unreachable(eta, p.deadline)) {
      dead(p, Reason.DEADLINE_UNREACHABLE);
    } else if (decision instanceof LimiterDecision.Admit) {
      ready(p);
    } else if (decision instanceof LimiterDecision.Reserved r) {
      at(r.notBeforeMillis() * 1000, READY, p);
    } else {
      p.holder = true;
      at(((LimiterDecision.Queued) decision).notBeforeMillis() * 1000, GATE, p);
    }
  }

  private static long ceilMillis(long micros) {
    return Math.floorDiv(micros + 999, 1000);
  }

  /** The tenant's bucket toward the lane's provider, {@link #NO_QUOTA} when it has no quota there. */
  private Bucket bucket(Lane lane, Tenant tenant) {
    Bucket b = lane.buckets.get(tenant.id);
    if (b == null) {
      Quota q = config.quotaOf(lane.name, tenant.entry).orElse(null);
      b = q == null ? NO_QUOTA
          : new Bucket(BucketSpec.of(q, config.reservationHorizon()), config.shadowOf(lane.name, tenant.entry));
      lane.buckets.put(tenant.id, b);
    }
    return b;
  }

  /**
   * Ready at its provider's lane: it waits in the fair queue for a leak slot. A lane that is not
   * pumping has nothing in its queue to choose between, so the event claims its slot now, as the
   * lane's pump would at this instant, and is called at once when granted: most events of a
   * provider below its rate then never enter the queue or the timeline.
   */
  private void ready(Pending p) {
    Lane lane = p.lane;
    if (!lane.pumping) {
      SlotClaim claim = claim(lane);
      if (claim.granted() > 0) {
        call(p, claim.slotMicros(0));
        return;
      }
      lane.queue.offer(p.tenant.tier, p.tenant.id, p.cost, p.rank, now * 1000, p);
      lane.pumping = true;
      at(Math.max(now + 1, claim.retryAtMicros()), PUMP, lane);
      return;
    }
    lane.queue.offer(p.tenant.tier, p.tenant.id, p.cost, p.rank, now * 1000, p);
  }

  /** A lane's turn: claim a slot of its leak at the virtual now, and call the next event with it. */
  private void pump(Lane lane) {
    if (lane.queue.isEmpty()) {
      lane.pumping = false;
      return;
    }
    SlotClaim claim = claim(lane);
    if (claim.granted() > 0) {
      long callAt = claim.slotMicros(0);
      while (!lane.queue.isEmpty()) {
        if (call(lane.queue.poll().orElseThrow(), callAt)) {
          break;
        }
      }
    }
    at(Math.max(now + 1, claim.retryAtMicros()), PUMP, lane);
  }

  /** One slot of the lane's leak at the virtual now; the local leak answers at once (a completed stage). */
  private SlotClaim claim(Lane lane) {
    return leak.claim(lane.name, lane.rate, 1, 0).toCompletableFuture().join();
  }

  /** Calls the event at its slot, or dead-letters it there when past its deadline; true when called. */
  private boolean call(Pending p, long callAt) {
    if (p.deadline != null && callAt > p.deadline.toEpochMilli() * 1000) {
      dead(p, Reason.EXPIRED);
      return false;
    }
    p.lane.tally.called(callAt);
    long millis = (callAt - p.sinceMicros) / 1000;
    p.tenant.tally.called(millis);
    p.tenant.tierTally.called(millis);
    return true;
  }

  private void dead(Pending p, Reason reason) {
    boolean missed = reason == Reason.DEADLINE_UNREACHABLE || reason == Reason.EXPIRED;
    p.tenant.tally.dead(reason, missed);
    p.tenant.tierTally.dead(reason, missed);
  }

  private Lane lane(String provider) {
    Lane lane = lanes.get(provider);
    if (lane == null) {
      double rate = config.providers().get(provider).rate().perSecond();
      lane = new Lane(provider, rate, new FairQueue<>(weights.isEmpty() ? Map.of("", 1.0) : weights,
          Integer.MAX_VALUE, order), new ProviderTally(rate));
      lanes.put(provider, lane);
    }
    return lane;
  }

  /** A tenant: its entry in the configuration (null: unlisted), its tier (null: unknown), tallies. */
  private static final class Tenant {
    final String id;
    final TenantConfig entry;
    final String tier;
    final Tally tally = new Tally();
    final Tally tierTally;

    Tenant(String id, TenantConfig entry, String tier, Map<String, Tally> tiers) {
      this.id = id;
      this.entry = entry;
      this.tier = tier;
      this.tierTally = tier == null ? null : tiers.computeIfAbsent(tier, t -> new Tally());
    }
  }

  /**
   * One event between its arrival and its call or dead letter: only what its decisions read (a
   * backlog of millions of these is the simulation's largest state).
   */
  private static final class Pending {
    final Tenant tenant;
    final Lane lane;
    final int cost;
    /** Its priority class, 0 first. */
    final int rank;
    /** Its deadline, or null. */
    final Instant deadline;
    /** Lateness is counted from here: its arrival, or the time it asked for. */
    long sinceMicros;
    /** It holds a ticket: it comes back to the gate at its turn in the bucket's line. */
    boolean holder;

    Pending(Tenant tenant, Lane lane, int cost, int rank, Instant deadline, long arrivedMicros) {
      this.tenant = tenant;
      this.lane = lane;
      this.cost = cost;
      this.rank = rank;
      this.deadline = deadline;
      this.sinceMicros = arrivedMicros;
    }
  }

  /** A tenant's bucket toward a provider: its shape, from the configuration, and its state. */
  private static final class Bucket {
    final BucketSpec spec;
    /** Shadow mode for the tenant there: admitted at once, whatever its bucket. */
    final boolean shadow;
    BucketState state;

    Bucket(BucketSpec spec, boolean shadow) {
      this.spec = spec;
      this.shadow = shadow;
    }
  }

  private static final Bucket NO_QUOTA = new Bucket(null, false);

  /** A provider's lane: its fair queue, rate, buckets by tenant, and calls. */
  private static final class Lane {
    final String name;
    final double rate;
    final FairQueue<Pending> queue;
    final ProviderTally tally;
    final Map<String, Bucket> buckets = new HashMap<>();
    /** A pump is due on the timeline: events wait in the queue for it. */
    boolean pumping;

    Lane(String name, double rate, FairQueue<Pending> queue, ProviderTally tally) {
      this.name = name;
      this.rate = rate;
      this.queue = queue;
      this.tally = tally;
    }
  }
}
