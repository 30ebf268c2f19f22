package io.sluice.topology.gate;

import io.sluice.schemas.config.SluiceConfig;
import io.sluice.topology.limiter.RedisCircuit;
import io.sluice.topology.limiter.TokenBucketStore;
import java.time.Clock;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * Everything the gate topology needs from outside, so the topology itself is pure wiring and a
 * test can hand it an in-memory store and a fake clock.
 *
 * @param store      the bucket store (Redis in production), shared by every task; thread-safe
 * @param circuit    the Redis circuit breaker, shared by every task of the instance
 * @param localShare this instance's share of each quota for the {@code local} fallback
 * @param clock      wall clock (epoch milliseconds) for timestamps, deadlines and the circuit
 * @param nanoTime   monotonic clock for leases and demand
 */
public record GateWiring(
    SluiceConfig config,
    TokenBucketStore store,
    RedisCircuit circuit,
    DoubleSupplier localShare,
    Clock clock,
    LongSupplier nanoTime,
    GateListener listener) {}
