package io.sluice.dispatcher.leak;

import io.sluice.redis.RedisCircuit;
import io.sluice.config.RedisDownPolicy;
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
 *       this instance's bursts, not from the sum of all instances (its windows and concurrency,
 *       quotas over time, stay at this instance's share, as under {@code local});
 *   <li>{@code fail_closed}: no slots; calls wait for Redis.
 * </ul>
 * The circuit opens on the first failure that says Redis is unavailable (a script's own error
 * does not: {@link RedisCircuit#isOutage}) and probes Redis with one call after 250 ms, doubling
 * up to 10 s; every call to Redis goes through {@link RedisCircuit#call}, which reports its
 * outcome, so a probe always resolves. Transitions are logged once by the circuit, never per call.
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
    // The circuit reports the call's outcome itself, probe or not; a refused call or a failed
    // one is the provider's policy's to answer.
    return circuit.call(() -> redis.claim(provider, ratePerSecond, wanted, lookaheadMicros))
        .exceptionallyCompose(error -> fallback(provider, ratePerSecond, wanted, lookaheadMicros,
            error));
  }

  /**
   * Jointly with the provider's total line ({@link ProviderTotal}); while Redis is down the local
   * leak keeps both lines, at this instance's share of both rates under {@code local} (the policy
   * is the provider's).
   */
  @Override
  public CompletionStage<SlotClaim> claim(String lane, double ratePerSecond, int wanted,
      long lookaheadMicros, ProviderTotal total) {
    return circuit.call(() -> redis.claim(lane, ratePerSecond, wanted, lookaheadMicros, total))
        .exceptionallyCompose(error -> {
          RedisDownPolicy policy = policies.getOrDefault(total.provider(), RedisDownPolicy.LOCAL);
          double n = Math.max(1, instances.getAsInt());
          return switch (policy) {
            case FAIL_CLOSED -> CompletableFuture.failedFuture(new IllegalStateException(
                "Redis is unavailable and " + total.provider() + " is fail_closed", error));
            case FAIL_OPEN -> local.claim(lane, ratePerSecond, wanted, lookaheadMicros, total);
            case LOCAL -> local.claim(lane, ratePerSecond / n, wanted, lookaheadMicros,
                new ProviderTotal(total.provider(), total.ratePerSecond() / n));
          };
        });
  }

  /** Every limit and the provider's total line; while Redis is down, as the limits alone. */
  @Override
  public CompletionStage<SlotClaim> claim(String lane, ProviderLimits limits,
      LimitedClaim request, ProviderTotal total) {
    return circuit.call(() -> redis.claim(lane, limits, request, total))
        .thenApply(claim -> {
          local.redisAnswered(lane);
          return claim;
        })
        .exceptionallyCompose(error -> {
          RedisDownPolicy policy = policies.getOrDefault(total.provider(), RedisDownPolicy.LOCAL);
          int n = Math.max(1, instances.getAsInt());
          if (policy != RedisDownPolicy.FAIL_CLOSED) {
            local.standingInForRedis(lane);
          }
          return switch (policy) {
            case FAIL_CLOSED -> CompletableFuture.failedFuture(new IllegalStateException(
                "Redis is unavailable and " + total.provider() + " is fail_closed", error));
            case FAIL_OPEN -> local.claim(lane, limits.windowsDividedAmong(n), request, total);
            case LOCAL -> local.claim(lane, limits.dividedAmong(n), request,
                new ProviderTotal(total.provider(), total.ratePerSecond() / n));
          };
        });
  }

  private CompletionStage<SlotClaim> fallback(String provider, double ratePerSecond, int wanted,
      long lookaheadMicros, Throwable cause) {
    RedisDownPolicy policy = policies.getOrDefault(provider, RedisDownPolicy.LOCAL);
    return switch (policy) {
      case FAIL_CLOSED -> CompletableFuture.failedFuture(new IllegalStateException(
          "Redis is unavailable and " + provider + " is fail_closed", cause));
      case FAIL_OPEN -> local.claim(provider, ratePerSecond, wanted, lookaheadMicros);
      case LOCAL -> local.claim(provider, ratePerSecond / Math.max(1, instances.getAsInt()),
          wanted, lookaheadMicros);
    };
  }

  /**
   * Every limit through Redis; while it is down, {@code local} enforces every limit in process at
   * this instance's share (amounts divided by the instances), {@code fail_open} the rate whole
   * and the windows and concurrency at this instance's share, {@code fail_closed} grants
   * nothing. Either local leak holds the windows and concurrency first, as after a loss of
   * Redis's data, since it cannot know what Redis granted just before ({@link LocalLeakyBucket}).
   *
   * <p>A claim that fails with Redis's own error (a script error of this provider) falls back for
   * this provider only: the circuit stays closed for the others ({@link RedisCircuit#isOutage}).
   */
  @Override
  public CompletionStage<SlotClaim> claim(String provider, ProviderLimits limits,
      LimitedClaim request) {
    return circuit.call(() -> redis.claim(provider, limits, request))
        .thenApply(claim -> {
          local.redisAnswered(provider);
          return claim;
        })
        .exceptionallyCompose(error -> {
          RedisDownPolicy policy = policies.getOrDefault(provider, RedisDownPolicy.LOCAL);
          int n = Math.max(1, instances.getAsInt());
          if (policy != RedisDownPolicy.FAIL_CLOSED) {
            local.standingInForRedis(provider);
          }
          return switch (policy) {
            case FAIL_CLOSED -> CompletableFuture.failedFuture(new IllegalStateException(
                "Redis is unavailable and " + provider + " is fail_closed", error));
            case FAIL_OPEN -> local.claim(provider, limits.windowsDividedAmong(n), request);
            case LOCAL -> local.claim(provider, limits.dividedAmong(n), request);
          };
        });
  }

  /**
   * Releases in both: a lease may have come from either. A failed Redis release is harmless: the
   * lease expires on its own.
   */
  @Override
  public CompletionStage<Void> release(String provider, String leaseId) {
    local.release(provider, leaseId);
    return circuit.call(() -> redis.release(provider, leaseId))
        .exceptionally(error -> null);
  }

  /** Settles in both, like a release: the slot may have come from either. */
  @Override
  public CompletionStage<Void> settle(String provider, ProviderLimits limits, long slotMicros,
      long reserved, long actual) {
    local.settle(provider, limits, slotMicros, reserved, actual);
    return circuit.call(() -> redis.settle(provider, limits, slotMicros, reserved, actual))
        .exceptionally(error -> null);
  }

  @Override
  public CompletionStage<ThrottleDecision> throttle(String provider, double ratePerSecond,
      long retryAfterMillis, long startedAtMicros) {
    // The local leak hears of every 429 too, so a fallback starts from a paused, cut rate.
    CompletionStage<ThrottleDecision> here =
        local.throttle(provider, ratePerSecond, retryAfterMillis, startedAtMicros);
    // Through the circuit like a claim: if this call is the half-open probe, its outcome is
    // reported (it once was not, and the circuit stayed half-open for ever).
    return circuit.call(() -> redis.throttle(provider, ratePerSecond, retryAfterMillis, startedAtMicros))
        .exceptionallyCompose(e -> here);
  }

  /**
   * Through Redis while the circuit is closed; otherwise, or when the publication fails, the
   * instance counts as alone. The local policies already split the rate by partition ownership
   * then, and a lane that cannot publish its counts claims as it did before instances shared by
   * weight.
   *
   * <p>Not through {@link RedisCircuit#call}: whether Redis is down is the claims' to find out. A
   * publication that fails for its own reason (a script error) must not open the circuit and
   * send every claim to the local leak.
   */
  @Override
  public CompletionStage<Map<String, Integer>> busyTenants(String provider, String member,
      Map<String, Integer> busyByTier, long ttlMicros) {
    Map<String, Integer> alone = Map.copyOf(busyByTier);
    if (circuit.state() != RedisCircuit.State.CLOSED) {
      return CompletableFuture.completedFuture(alone);
    }
    try {
      return redis.busyTenants(provider, member, busyByTier, ttlMicros)
          .exceptionally(error -> alone);
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(alone);
    }
  }
}
