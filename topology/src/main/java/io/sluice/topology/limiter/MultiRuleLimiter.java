package io.sluice.topology.limiter;

import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Decides a multi-rule event: one blocking call to {@code quota_rules.lua}, which charges every
 * rule or none. No lease and no reservation (the script's header says why that keeps invariant 1
 * per rule): the event is admitted now, or comes back when every rule could pay, holding nothing.
 * Shadow mode changes nothing in what is charged (a refused event is charged nothing anyway); its
 * refusal is a {@link LimiterDecision.WouldDefer}.
 */
public final class MultiRuleLimiter {
  private final TokenBucketStore store;
  private final RedisCircuit circuit;
  private final long timeoutNanos;
  private final LongSupplier nanoTime;
  private final CallListener onCall;

  /** Told of every answered call, with the event's provider and the call's duration. */
  public interface CallListener {
    void called(String provider, long nanos);
  }

  public MultiRuleLimiter(TokenBucketStore store, RedisCircuit circuit, Duration timeout, LongSupplier nanoTime,
      CallListener onCall) {
    this.store = store;
    this.circuit = circuit;
    this.timeoutNanos = timeout.toNanos();
    this.nanoTime = nanoTime;
    this.onCall = onCall;
  }

  /** Decides one event of {@code cost} units toward {@code provider} against all its rules. */
  public LimiterDecision decide(String provider, List<RuleBucket> rules, int cost, boolean shadow) {
    Optional<RedisCircuit.Permit> permit = circuit.tryAcquire();
    if (permit.isEmpty()) {
      return new LimiterDecision.Unavailable("circuit open after a Redis failure");
    }
    RulesAcquisition a;
    long sent = nanoTime.getAsLong();
    try {
      a = store.acquireAll(rules, cost).toCompletableFuture().get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      permit.get().failed(e);
      return new LimiterDecision.Unavailable("interrupted");
    } catch (Exception e) {
      permit.get().failed(e);
      Throwable t = e.getCause() != null ? e.getCause() : e;
      return new LimiterDecision.Unavailable(t.getClass().getSimpleName() + ": " + t.getMessage());
    }
    permit.get().succeeded();
    onCall.called(provider, nanoTime.getAsLong() - sent);
    if (a.isGranted()) {
      return new LimiterDecision.Admit(a.nowMicros() / 1000);
    }
    long at = LimiterDecision.ceilMillis(a.nowMicros() + a.waitMicros());
    return shadow ? new LimiterDecision.WouldDefer(at) : new LimiterDecision.Queued(at);
  }
}
