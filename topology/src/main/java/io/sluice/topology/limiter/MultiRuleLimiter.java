package io.sluice.topology.limiter;

import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Decides a multi-rule event: one call to {@code quota_rules.lua}, which charges every rule or
 * none (the gate sends several events' calls in one, {@link #send}). No lease and no reservation (the script's header says why that keeps invariant 1
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

  /** Told of every answered call (a batch is one), with the (first) event's provider and its duration. */
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
    Pending p = begin(provider, rules, cost, shadow);
    if (p.decided() != null) {
      return p.decided();
    }
    RulesAcquisition a;
    try {
      a = store.acquireAll(rules, cost).toCompletableFuture().get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (Exception e) {
      return fail(p, e);
    }
    onCall.called(provider, nanoTime.getAsLong() - p.sentNanos);
    return finish(p, a);
  }

  /**
   * A multi-rule event's decision without waiting: {@link #decided()} when the circuit is open,
   * else the {@link #call()} whose answer {@link #finish} turns into the decision. Rule buckets
   * hold no lease or line at this instance, so events need not wait for each other's calls: the
   * script decides a batch in order, as it would one by one.
   */
  public static final class Pending {
    private final LimiterDecision decided;
    private final TokenBucketStore.RulesCall call;
    private final String provider;
    private final boolean shadow;
    private final RedisCircuit.Permit permit;
    private final long sentNanos;

    private Pending(LimiterDecision decided, TokenBucketStore.RulesCall call, String provider, boolean shadow,
        RedisCircuit.Permit permit, long sentNanos) {
      this.decided = decided;
      this.call = call;
      this.provider = provider;
      this.shadow = shadow;
      this.permit = permit;
      this.sentNanos = sentNanos;
    }

    public LimiterDecision decided() {
      return decided;
    }

    public TokenBucketStore.RulesCall call() {
      return call;
    }

    public long sentNanos() {
      return sentNanos;
    }
  }

  /** The first half of {@link #decide}: a permit of the circuit, and the call to make. */
  public Pending begin(String provider, List<RuleBucket> rules, int cost, boolean shadow) {
    Optional<RedisCircuit.Permit> permit = circuit.tryAcquire();
    if (permit.isEmpty()) {
      return new Pending(new LimiterDecision.Unavailable("circuit open after a Redis failure"), null, provider,
          shadow, null, 0);
    }
    return new Pending(null, new TokenBucketStore.RulesCall(rules, cost), provider, shadow, permit.get(),
        nanoTime.getAsLong());
  }

  /** Sends several events' calls together ({@link TokenBucketStore#acquireAllBatch}). */
  public CompletableFuture<List<RulesAcquisition>> send(List<Pending> calls) {
    List<TokenBucketStore.RulesCall> batch = new ArrayList<>(calls.size());
    calls.forEach(p -> batch.add(p.call));
    long sent = nanoTime.getAsLong();
    CompletableFuture<List<RulesAcquisition>> answers;
    try {
      answers = store.acquireAllBatch(batch).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    // One round trip for the batch, told on the thread that completes it.
    String provider = calls.get(0).provider;
    answers.thenRun(() -> onCall.called(provider, nanoTime.getAsLong() - sent));
    return answers;
  }

  /** The second half of {@link #decide}: the script's answer to {@code p}'s call. */
  public LimiterDecision finish(Pending p, RulesAcquisition a) {
    p.permit.succeeded();
    if (a.isGranted()) {
      return new LimiterDecision.Admit(a.nowMicros() / 1000);
    }
    long at = LimiterDecision.ceilMillis(a.nowMicros() + a.waitMicros());
    return p.shadow ? new LimiterDecision.WouldDefer(at) : new LimiterDecision.Queued(at);
  }

  /** {@code p}'s call failed or was not answered in time. */
  public LimiterDecision fail(Pending p, Throwable e) {
    p.permit.failed(e);
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return new LimiterDecision.Unavailable("interrupted");
    }
    Throwable t = e.getCause() != null && !(e instanceof java.util.concurrent.TimeoutException) ? e.getCause() : e;
    return new LimiterDecision.Unavailable(t.getClass().getSimpleName() + ": " + t.getMessage());
  }
}
