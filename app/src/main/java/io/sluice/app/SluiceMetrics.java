package io.sluice.app;

import io.sluice.app.tracing.BoundedSpanQueue;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.feedback.LearnedLimit;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.app.ops.MetricNames;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.redis.RedisCircuit;
import io.sluice.config.RedisDownPolicy;
import io.sluice.schemas.event.Reason;
import io.sluice.relay.RelayListener;
import io.sluice.gate.GateListener;
import io.sluice.config.LiveConfig;
import java.math.BigDecimal;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Every role's events as Dropwizard metrics, named {@code sluice_<role>_<what>} with labels for
 * provider, tier and reason (the README's "Metrics and health" lists them; the dashboard and alert
 * rules in {@code deploy/} read them). Tenant ids never appear: a tenant count is unbounded, and a
 * metric per tenant would grow the registry (and Prometheus) without limit. Thread-safe: the
 * registry's get-or-create is.
 */
public final class SluiceMetrics implements GateListener, RelayListener, DispatchListener {
  private final MetricRegistry registry;
  private final LongSupplier millis;
  /** Per provider: epoch ms until which its calls are known to wait (see {@link #heldUntil}). */
  private final Map<String, AtomicLong> heldUntil =
      new ConcurrentHashMap<>();

  public SluiceMetrics(MetricRegistry registry) {
    this(registry, System::currentTimeMillis);
  }

  /** @param millis the wall clock, epoch milliseconds (tests pass their own) */
  public SluiceMetrics(MetricRegistry registry, LongSupplier millis) {
    this.registry = registry;
    this.millis = millis;
  }

  public MetricRegistry registry() {
    return registry;
  }

  /**
   * A series (its family and labels, as the caller wrote them) and the counter or timer it names:
   * a call reports several series, at thousands of calls a second, and checking and building the
   * registry name each time ({@link MetricNames#name}) cost the dispatcher a twentieth of its CPU.
   * Grows as the registry does: label values come from bounded sets.
   */
  private record Series(String base, List<String> labels) {}

  private final Map<Series, Counter> counters =
      new ConcurrentHashMap<>();
  private final Map<Series, Timer> timers =
      new ConcurrentHashMap<>();

  private Counter counter(String base, String... labels) {
    Series series = new Series(base, List.of(labels));
    Counter counter = counters.get(series);
    return counter != null ? counter
        : counters.computeIfAbsent(series, s -> registry.counter(MetricNames.name(base, labels)));
  }

  private Timer timer(String base, String... labels) {
    Series series = new Series(base, List.of(labels));
    Timer timer = timers.get(series);
    return timer != null ? timer
        : timers.computeIfAbsent(series, s -> registry.timer(MetricNames.name(base, labels)));
  }

  /** Registers a gauge once (later calls with the same name keep the first). */
  public void gauge(Supplier<Number> value, String base, String... labels) {
    String name = MetricNames.name(base, labels);
    if (!registry.getGauges().containsKey(name)) {
      registry.register(name, (Gauge<Number>) value::get);
    }
  }

  /** A configuration reload's outcome: applied, rejected (the running one stays) or unchanged. */
  /**
   * The tracer's losses: {@code sluice_tracing_spans_dropped_total} (the export queue was full)
   * and {@code sluice_tracing_spans_failed_total} (the receiver did not take them).
   */
  public BoundedSpanQueue.Counts tracing() {
    return new BoundedSpanQueue.Counts() {
      @Override
      public void dropped(long spans) {
        counter("sluice_tracing_spans_dropped").inc(spans);
      }

      @Override
      public void failed(long spans) {
        counter("sluice_tracing_spans_failed").inc(spans);
      }
    };
  }

  public void configReload(LiveConfig.Outcome outcome) {
    String what = outcome instanceof LiveConfig.Outcome.Applied ? "applied"
        : outcome instanceof LiveConfig.Outcome.Rejected ? "rejected" : "unchanged";
    counter("sluice_config_reloads", "outcome", what).inc();
  }

  private static String t(String tier) {
    return tier == null || tier.isEmpty() ? "none" : tier;
  }

  private static String p(String provider) {
    return provider == null ? "none" : provider;
  }

  // ---- gate

  @Override
  public void decided(String provider, String tier) {
    counter("sluice_gate_decisions", "provider", p(provider), "tier", t(tier)).inc();
  }

  @Override
  public void redisCall(String provider, long nanos) {
    timer("sluice_gate_redis_script_seconds", "provider", p(provider))
        .update(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void admitted(String provider, String tier, int cost) {
    counter("sluice_gate_admitted", "provider", p(provider), "tier", t(tier)).inc();
    counter("sluice_gate_admitted_cost", "provider", p(provider), "tier", t(tier)).inc(cost);
  }

  @Override
  public void deferred(String provider, String tier, Reason reason, boolean paid) {
    counter("sluice_gate_deferred", "provider", p(provider), "tier", t(tier),
        "reason", reason.code(), "paid", String.valueOf(paid)).inc();
  }

  @Override
  public void dead(Reason reason) {
    counter("sluice_gate_dead", "reason", reason.code()).inc();
  }

  @Override
  public void duplicate(String provider, String tier) {
    counter("sluice_gate_duplicates", "provider", p(provider), "tier", t(tier)).inc();
  }

  @Override
  public void shadowWouldDefer(String provider, String tier) {
    counter("sluice_gate_shadow_would_defer", "provider", p(provider), "tier", t(tier)).inc();
  }

  @Override
  public void redisFallback(String provider, RedisDownPolicy policy) {
    counter("sluice_gate_redis_fallback", "provider", p(provider),
        "policy", policy.name().toLowerCase()).inc();
  }

  // ---- relay

  @Override
  public void released(String returnTo, long lateMillis) {
    timer("sluice_relay_lateness_seconds").update(lateMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  public void hopped(String fromTopic, String toTopic) {
    counter("sluice_relay_hops").inc();
  }

  @Override
  public void deadLettered(String detail) {
    counter("sluice_relay_dead").inc();
  }

  // ---- dispatcher

  @Override
  public void callStarted(String provider, String tier, long slotMicros, long lateNanos) {
    counter("sluice_dispatch_calls", "provider", p(provider), "tier", t(tier)).inc();
    timer("sluice_dispatch_slot_lateness_seconds", "provider", p(provider))
        .update(lateNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void callEnded(String provider, String tier, ProviderResult result, long latencyNanos) {
    String status;
    if (result instanceof ProviderResult.Answered a) {
      status = (a.status() / 100) + "xx";
    } else if (result instanceof ProviderResult.TimedOut) {
      status = "timeout";
    } else if (result instanceof ProviderResult.Unsendable) {
      status = "unsendable";
    } else {
      status = "connect_error";
    }
    counter("sluice_dispatch_responses", "provider", p(provider), "status", status).inc();
    if (result instanceof ProviderResult.Answered a && a.status() == 429) {
      counter("sluice_dispatch_provider_429", "provider", p(provider)).inc();
    }
    timer("sluice_dispatch_provider_latency_seconds", "provider", p(provider))
        .update(latencyNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void delivered(String provider, String tier) {
    counter("sluice_dispatch_delivered", "provider", p(provider), "tier", t(tier)).inc();
  }

  @Override
  public void deferred(String provider, String tier, Reason reason) {
    counter("sluice_dispatch_deferred", "provider", p(provider), "tier", t(tier),
        "reason", reason.code()).inc();
  }

  @Override
  public void dead(String provider, String tier, Reason reason) {
    counter("sluice_dispatch_dead", "provider", p(provider), "tier", t(tier),
        "reason", reason.code()).inc();
  }

  @Override
  public void throttled(String provider, long retryAfterMillis) {
    counter("sluice_dispatch_throttled", "provider", p(provider)).inc();
    heldUntil(provider, retryAfterMillis);
  }

  @Override
  public void endpointDisabled(String provider) {
    counter("sluice_dispatch_endpoint_disabled", "provider", p(provider)).inc();
  }

  @Override
  public void endpointEnabled(String provider) {
    counter("sluice_dispatch_endpoint_enabled", "provider", p(provider)).inc();
  }

  @Override
  public void slotWasted(String provider, String reason) {
    counter("sluice_dispatch_slots_wasted", "provider", p(provider), "reason", reason).inc();
  }

  @Override
  public void leakUnavailable(String provider, Throwable cause) {
    counter("sluice_dispatch_leak_unavailable", "provider", p(provider)).inc();
  }

  /**
   * A provider lane's gauges: {@code sluice_dispatch_buffered} (events held in its fair queue),
   * {@code sluice_dispatch_in_flight} (calls not answered yet) and
   * {@code sluice_dispatch_configured_rate} (the configured leak rate, calls per second across
   * every instance, to compare with {@code rate(sluice_dispatch_calls_total)}).
   */
  public void providerLane(String provider, IntSupplier buffered, IntSupplier inFlight,
      DoubleSupplier configuredRate) {
    gauge(buffered::getAsInt, "sluice_dispatch_buffered", "provider", provider);
    gauge(inFlight::getAsInt, "sluice_dispatch_in_flight", "provider", provider);
    gauge(configuredRate::getAsDouble, "sluice_dispatch_configured_rate", "provider", provider);
  }

  /**
   * {@code sluice_role_restarts_total{role}}: a role whose loop stopped was started again with new
   * clients by its supervisor.
   */
  public void roleRestarted(String role) {
    counter("sluice_role_restarts", "role", role).inc();
  }

  // ---- limits learned from the providers' answers

  /** Each provider's learned-limit gauges by registry name, to remove those that faded. */
  private final Map<String, Set<String>> learnedGauges =
      new ConcurrentHashMap<>();
  private final Map<String, Long> learnedQuotas =
      new ConcurrentHashMap<>();

  @Override
  public void malformedHeader(String provider, String header) {
    counter("sluice_dispatch_limit_headers_malformed", "provider", p(provider), "header", header)
        .inc();
  }

  /**
   * {@code sluice_dispatch_learned_limit{provider,unit,window_seconds}}: the quota of each limit
   * learned from the provider's answers while it lives (a faded one is removed).
   */
  @Override
  public synchronized void learned(String provider, Collection<LearnedLimit> limits) {
    Set<String> now = new HashSet<>();
    for (LearnedLimit l : limits) {
      String name = MetricNames.name("sluice_dispatch_learned_limit", "provider", p(provider),
          "unit", l.unit().label(), "window_seconds", windowSeconds(l.windowMillis()));
      now.add(name);
      learnedQuotas.put(name, l.quota());
      if (!registry.getGauges().containsKey(name)) {
        registry.register(name, (Gauge<Number>) () -> learnedQuotas.getOrDefault(name, 0L));
      }
    }
    Set<String> before = learnedGauges.put(p(provider), now);
    if (before != null) {
      for (String gone : before) {
        if (!now.contains(gone)) {
          registry.remove(gone);
          learnedQuotas.remove(gone);
        }
      }
    }
  }

  private static String windowSeconds(long millis) {
    return millis % 1000 == 0 ? Long.toString(millis / 1000)
        : BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString();
  }

  @Override
  public void held(String provider, long holdMillis) {
    counter("sluice_dispatch_learned_holds", "provider", p(provider)).inc();
    heldUntil(provider, holdMillis);
  }

  /**
   * {@code sluice_dispatch_held_until_seconds{provider}}: the epoch second until which the
   * provider asked this instance to make no call (a 429's Retry-After, or a hold its limit headers
   * asked for: a spent window), the latest such end seen; absent until the first one. So an alert
   * can tell a provider that legitimately waits ({@code > time()}) from a stalled one.
   */
  private void heldUntil(String provider, long waitMillis) {
    heldUntil.computeIfAbsent(p(provider), name -> {
      AtomicLong until = new AtomicLong();
      gauge(() -> until.get() / 1000.0, "sluice_dispatch_held_until_seconds", "provider", name);
      return until;
    }).accumulateAndGet(millis.getAsLong() + Math.max(0, waitMillis), Math::max);
  }

  /**
   * {@code sluice_dispatch_answer_bounded_total{provider,bound}}: answers a bound held back
   * ({@code retry-after}, {@code hold}: clamped to maxRetryAfter; {@code floor}: learned limits
   * below learnedFloor of the configured ones).
   */
  @Override
  public void bounded(String provider, LimitLearner.Bound bound) {
    counter("sluice_dispatch_answer_bounded", "provider", p(provider), "bound", bound.label())
        .inc();
  }

  /**
   * {@code sluice_dispatch_paced_rate{provider}}: the rate the leak runs at, the configured one
   * lowered to the learned limits (calls per second across every instance).
   */
  public void pacedRate(String provider, Supplier<Number> rate) {
    gauge(rate, "sluice_dispatch_paced_rate", "provider", provider);
  }

  /**
   * {@code sluice_dispatch_total_paced_rate{provider}}: the rate a per-tenant provider's total
   * line paces all its endpoints at together ({@code totalRate} as in force; calls per second
   * across every endpoint and instance). Only for a provider with a {@code totalRate}.
   */
  public void totalPacedRate(String provider, Supplier<Number> rate) {
    gauge(rate, "sluice_dispatch_total_paced_rate", "provider", provider);
  }

  /**
   * {@code sluice_provider_credential_ready{provider}}: 0 while the provider's calls wait for an
   * OAuth2 token (its token endpoint down, or a 401 being answered with a new token), else 1.
   */
  public void credentialReady(String provider, Supplier<Number> ready) {
    gauge(ready, "sluice_provider_credential_ready", "provider", provider);
  }

  /**
   * What this dispatcher's queues hold of a tier's events toward a provider, by provider and tier
   * only (never by tenant: tenants are unbounded): {@code
   * sluice_dispatch_oldest_wait_seconds{provider,tier}}, the age of the oldest queued (from its
   * first sight by the gate), 0 when none is queued; {@code
   * sluice_dispatch_backlog_eta_seconds{provider,tier}}, in how long they are all served at the
   * lanes' pace and weights ({@code TierDrain}), 0 when none is queued, NaN when a lane cannot
   * tell. Events deferred in Kafka are not counted (their quota's or parking's time is theirs).
   */
  public void tierWait(String provider, String tier, Supplier<Number> oldestSeconds,
      Supplier<Number> etaSeconds) {
    gauge(oldestSeconds, "sluice_dispatch_oldest_wait_seconds", "provider", provider, "tier", tier);
    gauge(etaSeconds, "sluice_dispatch_backlog_eta_seconds", "provider", provider, "tier", tier);
  }

  /**
   * {@code sluice_dispatch_paused{provider}}: the operator's pauses in force that concern the
   * provider (its own, its tenants' on it, tenants' on every provider), 0 when none; and
   * {@code sluice_dispatch_paused_held{provider}}: the events this dispatcher holds for them.
   */
  public void paused(String provider, Supplier<Number> pauses, Supplier<Number> held) {
    gauge(pauses, "sluice_dispatch_paused", "provider", provider);
    gauge(held, "sluice_dispatch_paused_held", "provider", provider);
  }

  /**
   * {@code sluice_dispatch_pace_factor}: the share of its rate every lane of the dispatcher claims,
   * 1 at full pace, less while the process cannot keep its slots on time (overloaded; never below
   * {@code PaceGovernor.FLOOR}).
   */
  public void paceFactor(Supplier<Number> factor) {
    gauge(factor, "sluice_dispatch_pace_factor");
  }

  /**
   * {@code sluice_dispatch_settlements_unacknowledged}: settlements (outcomes, deferrals, dead
   * letters) handed to Kafka and not yet acknowledged. Tens at most while the broker answers;
   * while the oldest of them is older than 2 s no call starts ({@code WriteStall}), and the slots
   * left unused count in {@code sluice_dispatch_slots_wasted{reason="unwritten"}}.
   */
  public void unacknowledgedSettlements(Supplier<Number> count) {
    gauge(count, "sluice_dispatch_settlements_unacknowledged");
  }

  /**
   * {@code sluice_gate_tenant_registry_stale}: 1 while the gate's view of the tenant registry is
   * stale (no read of its changes for 5 s: the tenants kept stay in force as last read), else 0.
   */
  public void tenantRegistryStale(BooleanSupplier stale) {
    gauge(() -> stale.getAsBoolean() ? 1 : 0, "sluice_gate_tenant_registry_stale");
  }

  // ---- Redis circuits

  /**
   * {@code sluice_redis_circuit_open{role}}: 1 while the role's circuit in front of Redis is open
   * or half-open (each provider's onRedisDown policy decides), 0 while closed, as {@code /health}
   * counts it.
   */
  public void redisCircuit(String role, RedisCircuit circuit) {
    redisCircuit(role, () -> circuit);
  }

  /** {@link #redisCircuit(String, RedisCircuit)} of the role's running instance, restarts included. */
  public void redisCircuit(String role, Supplier<RedisCircuit> circuit) {
    gauge(() -> circuit.get().state() == RedisCircuit.State.CLOSED ? 0 : 1,
        "sluice_redis_circuit_open", "role", role);
  }

  /**
   * A hanging transaction on {@code topic} was aborted (see HangingTransactionSweeper), after
   * {@code writtenAgain} records of its partition were written again.
   */
  public void hangingTransactionAborted(String topic, long writtenAgain) {
    counter("sluice_hanging_transactions_aborted", "topic", topic).inc();
    counter("sluice_hanging_transactions_records_written_again", "topic", topic).inc(writtenAgain);
  }

  /** A hanging transaction on {@code topic} is held for an operator (its coordinator unclear). */
  public void hangingTransactionHeld(String topic) {
    counter("sluice_hanging_transactions_held", "topic", topic).inc();
  }

  /** The hanging-transaction sweeper failed at {@code kind} (look, coordinators, ...). */
  public void hangingTransactionsFailure(String kind) {
    counter("sluice_hanging_transactions_failures", "kind", kind).inc();
  }

  /** A counter's value, 0 when it does not exist yet (for the demo's progress line). */
  public long count(String base, String... labels) {
    Counter c = registry.getCounters().get(MetricNames.name(base, labels));
    return c == null ? 0 : c.getCount();
  }

  /** The sum over every label set of a counter family. */
  public long sum(String base) {
    long total = 0;
    for (var e : registry.getCounters().entrySet()) {
      if (e.getKey().equals(base) || e.getKey().startsWith(base + "{")) {
        total += e.getValue().getCount();
      }
    }
    return total;
  }
}
