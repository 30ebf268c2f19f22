package io.sluice.gate;

import io.sluice.redis.RedisCircuit;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.order.OrderStore;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.gate.limiter.TokenBucketStore;
import io.sluice.schemas.trace.StageTracer;
import java.time.Clock;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Everything the gate topology needs from outside, so the topology itself is pure wiring and a
 * test can hand it an in-memory store and a fake clock.
 *
 * @param store      the bucket store (Redis in production), shared by every task; thread-safe
 * @param circuit    the Redis circuit breaker, shared by every task of the instance
 * @param localShare this instance's share of each quota for the {@code local} fallback
 * @param clock      wall clock (epoch milliseconds) for timestamps, deadlines and the circuit
 * @param nanoTime   monotonic clock for leases and demand
 * @param live       the configuration in force, read once per event: a reload (tenants, tiers,
 *                   quotas, rules, a provider's {@code maxCost} or {@code shadow}) reaches the
 *                   next event; {@code config} is the one the topology was built from, for what
 *                   needs a restart (topics, the ladder, the gate's own settings)
 * @param tenants    the tenant registry's records, over the file's entries, looked up per event
 *                   without a round trip ({@link io.sluice.redis.tenants.TenantWatcher});
 *                   {@link TenantLookup#NONE} decides every tenant by the file
 * @param redisClock a lower bound of Redis's clock ({@code RedisTimeClock}), the relay's clock:
 *                   when an event that asked for a time is due
 * @param seen       where the first record of each event id is remembered for its provider's
 *                   {@code dedupWindow} (Redis: {@link RedisSeenIds})
 * @param orders     where ordered events take their turns in their keys ({@code RedisOrderStore})
 * @param tracer     the decisions' spans ({@link GateSpans}); {@link StageTracer#OFF} for none
 */
public record GateWiring(
    SluiceConfig config,
    TokenBucketStore store,
    RedisCircuit circuit,
    DoubleSupplier localShare,
    Clock clock,
    LongSupplier nanoTime,
    GateListener listener,
    Supplier<SluiceConfig> live,
    TenantLookup tenants,
    Clock redisClock,
    SeenIds seen,
    OrderStore orders,
    StageTracer tracer) {

  /** Wiring that traces nothing. */
  public GateWiring(SluiceConfig config, TokenBucketStore store, RedisCircuit circuit,
      DoubleSupplier localShare, Clock clock, LongSupplier nanoTime, GateListener listener,
      Supplier<SluiceConfig> live, TenantLookup tenants, Clock redisClock, SeenIds seen,
      OrderStore orders) {
    this(config, store, circuit, localShare, clock, nanoTime, listener, live, tenants, redisClock, seen,
        orders, StageTracer.OFF);
  }

  /** Wiring that orders no key (every assignment unanswered). */
  public GateWiring(SluiceConfig config, TokenBucketStore store, RedisCircuit circuit,
      DoubleSupplier localShare, Clock clock, LongSupplier nanoTime, GateListener listener,
      Supplier<SluiceConfig> live, TenantLookup tenants, Clock redisClock, SeenIds seen) {
    this(config, store, circuit, localShare, clock, nanoTime, listener, live, tenants, redisClock, seen,
        OrderStore.NONE);
  }

  /** Wiring whose Redis clock is {@code clock} and that remembers no ids (tests). */
  public GateWiring(SluiceConfig config, TokenBucketStore store, RedisCircuit circuit,
      DoubleSupplier localShare, Clock clock, LongSupplier nanoTime, GateListener listener,
      Supplier<SluiceConfig> live, TenantLookup tenants) {
    this(config, store, circuit, localShare, clock, nanoTime, listener, live, tenants, clock, SeenIds.NONE);
  }

  /** Wiring without a tenant registry. */
  public GateWiring(SluiceConfig config, TokenBucketStore store, RedisCircuit circuit,
      DoubleSupplier localShare, Clock clock, LongSupplier nanoTime, GateListener listener,
      Supplier<SluiceConfig> live) {
    this(config, store, circuit, localShare, clock, nanoTime, listener, live, TenantLookup.NONE);
  }

  /** Wiring whose configuration never changes. */
  public GateWiring(SluiceConfig config, TokenBucketStore store, RedisCircuit circuit,
      DoubleSupplier localShare, Clock clock, LongSupplier nanoTime, GateListener listener) {
    this(config, store, circuit, localShare, clock, nanoTime, listener, () -> config);
  }
}
