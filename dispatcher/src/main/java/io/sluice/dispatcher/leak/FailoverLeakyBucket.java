package io.sluice.dispatcher.leak;

import io.sluice.schemas.config.RedisDownPolicy;
import io.sluice.topology.limiter.RedisCircuit;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.IntSupplier;

/**
 * The Redis leak, with each provider's {@code onRedisDown} policy behind a circuit breaker for the
 * time Redis does not answer:
 * <ul>
 *   <li>{@code local}: an in-process leak at this instance's share of the rate ({@code rate / N},
 *       N estimated from the share of {@code sluice.ready} partitions this instance owns), so the
 *       instances together stay near the rate without talking to each other;
 *   <li>{@code fail_open}: an in-process leak at the full rate: the provider is protected from
 *       this instance's bursts, not from the sum of all instances;
 *   <li>{@code fail_closed}: no slots; calls wait for Redis.
 * </ul>
 * The circuit opens on the first failure and probes Redis with one claim after 250 ms, doubling
 * up to 10 s; transitions are logged once by the circuit's owner, never per call.
 */
public final class FailoverLeakyBucket implements LeakyBucket {
  private final LeakyBucket redis;
  private final LocalLeakyBucket local;
  private final Map<String, RedisDownPolicy> policies;
  private final RedisCircuit circuit;
  private final IntSupplier instances;

  public FailoverLeakyBucket(LeakyBucket redis, LocalLeakyBucket local,
      Map<String, RedisDownPolicy> policies, RedisCircuit circuit, IntSupplier instances) {
    this.redis = redis;
    this.local = local;
    this.policies = Map.copyOf(policies);
    this.circuit = circuit;
    this.instances = instances;
  }

  @Override
  public CompletionStage<SlotClaim> claim(String provider, double ratePerSecond, int wanted,
      long lookaheadMicros) {
    if (!circuit.allow(System.currentTimeMillis())) {
      return fallback(provider, ratePerSecond, wanted, lookaheadMicros, null);
    }
    CompletableFuture<SlotClaim> result = new CompletableFuture<>();
    redis.claim(provider, ratePerSecond, wanted, lookaheadMicros).whenComplete((claim, error) -> {
      if (error == null) {
        circuit.onSuccess();
        result.complete(claim);
      } else {
        circuit.onFailure(System.currentTimeMillis());
        fallback(provider, ratePerSecond, wanted, lookaheadMicros, error).whenComplete((c, e) -> {
          if (e == null) {
            result.complete(c);
          } else {
            result.completeExceptionally(e);
          }
        });
      }
    });
    return result;
  }

  private CompletionStage<SlotClaim> fallback(String provider, double ratePerSecond, int wanted,
      long lookaheadMicros, Throwable cause) {
    RedisDownPolicy policy = policies.getOrDefault(provider, RedisDownPolicy.LOCAL);
    return switch (policy) {
      case FAIL_CLOSED -> CompletableFuture.failedFuture(cause != null ? cause
          : new IllegalStateException("Redis is unavailable and " + provider
              + " is fail_closed"));
      case FAIL_OPEN -> local.claim(provider, ratePerSecond, wanted, lookaheadMicros);
      case LOCAL -> local.claim(provider, ratePerSecond / Math.max(1, instances.getAsInt()),
          wanted, lookaheadMicros);
    };
  }

  @Override
  public CompletionStage<ThrottleDecision> throttle(String provider, double ratePerSecond,
      long retryAfterMillis, long startedAtMicros) {
    // The local leak hears of every 429 too, so a fallback starts from a paused, cut rate.
    CompletionStage<ThrottleDecision> here =
        local.throttle(provider, ratePerSecond, retryAfterMillis, startedAtMicros);
    if (!circuit.allow(System.currentTimeMillis())) {
      return here;
    }
    return redis.throttle(provider, ratePerSecond, retryAfterMillis, startedAtMicros)
        .exceptionallyCompose(e -> here);
  }
}
