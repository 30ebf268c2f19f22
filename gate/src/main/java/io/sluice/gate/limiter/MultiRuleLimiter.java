package io.sluice.gate.limiter;

import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Decides a multi-rule event: one call to {@code quota_rules.lua}, which charges every rule or
 * none (the gate sends several events' calls in one, {@link #send}). No reservation (the script's header says why that keeps invariant 1
 * per rule): the event is admitted now, or comes back when every rule could pay, holding nothing.
 *
 * <p>Leases across rules: a rule set (an event's exact list of buckets) busy enough asks, with one
 * of its events, for more units from every rule at once ({@link RulesLease}, sized like a
 * single-rule lease from its demand, at most {@code gate.maxLease}); its later events are admitted
 * from that lease in process, without a call, while it has units and time of use left. One call
 * asks for a rule set's lease at a time; the event that finds it spent asks for the next one and
 * gives the old one back with its call. Rule sets this task remembers are bounded
 * ({@link GateLimiter#MAX_REMEMBERED}, least recently used first; a forgotten lease's unused units
 * are lost at its deadline: stricter).
 * Shadow mode changes nothing in what is charged (a refused event is charged nothing anyway); its
 * refusal is a {@link LimiterDecision.WouldDefer}.
 */
public final class MultiRuleLimiter {
  private final TokenBucketStore store;
  private final RedisCircuit circuit;
  private final long timeoutNanos;
  private final LongSupplier nanoTime;
  private final CallListener onCall;
  private final double leaseTargetSeconds;
  private final int maxLease;
  private final long useMicros;
  private final long holdMicros;
  private final Map<String, RuleSet> ruleSets = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, RuleSet> eldest) {
      return size() > GateLimiter.MAX_REMEMBERED;
    }
  };

  /**
   * A rule set's demand at this task, its lease, whether a call is asking for one, and the terms
   * (each rule's spec, in order) the lease was sold under and the asking call was made under.
   */
  private static final class RuleSet {
    final DemandEstimate demand = new DemandEstimate();
    RulesLease lease;
    List<BucketSpec> leaseSpecs;
    boolean asking;
    List<BucketSpec> askingSpecs;
  }

  /** Told of every answered call (a batch is one), with the (first) event's provider and its duration. */
  public interface CallListener {
    void called(String provider, long nanos);
  }

  /** Without leases: every event is decided by the script. */
  public MultiRuleLimiter(TokenBucketStore store, RedisCircuit circuit, Duration timeout, LongSupplier nanoTime,
      CallListener onCall) {
    this(store, circuit, timeout, nanoTime, onCall, Duration.ofSeconds(1), 0);
  }

  /**
   * @param leaseTarget how much of a rule set's demand one lease covers (as {@code gate.leaseTarget})
   * @param maxLease    most units leased beyond an event's cost (0: no leases)
   */
  public MultiRuleLimiter(TokenBucketStore store, RedisCircuit circuit, Duration timeout, LongSupplier nanoTime,
      CallListener onCall, Duration leaseTarget, int maxLease) {
    this.store = store;
    this.circuit = circuit;
    this.timeoutNanos = timeout.toNanos();
    this.nanoTime = nanoTime;
    this.onCall = onCall;
    this.leaseTargetSeconds = leaseTarget.toNanos() / 1e9;
    this.maxLease = maxLease;
    long target = Math.max(1, leaseTarget.toNanos() / 1000);
    this.useMicros = GateLimiter.USE_FACTOR * target;
    this.holdMicros = GateLimiter.HOLD_FACTOR * target;
  }

  /** Decides one event of {@code cost} units toward {@code provider} against all its rules. */
  public LimiterDecision decide(String provider, List<RuleBucket> rules, int cost, boolean shadow) {
    Pending p = begin(provider, rules, cost, shadow);
    if (p.decided() != null) {
      return p.decided();
    }
    RulesAcquisition a;
    try {
      a = store.acquireAllBatch(List.of(p.call)).toCompletableFuture().get(timeoutNanos, TimeUnit.NANOSECONDS).get(0);
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
    private final RuleSet asking;

    private Pending(LimiterDecision decided, TokenBucketStore.RulesCall call, String provider, boolean shadow,
        RedisCircuit.Permit permit, long sentNanos, RuleSet asking) {
      this.decided = decided;
      this.call = call;
      this.provider = provider;
      this.shadow = shadow;
      this.permit = permit;
      this.sentNanos = sentNanos;
      this.asking = asking;
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

  /**
   * The first half of {@link #decide}: the rule set's lease when it can serve the event (then
   * {@link Pending#decided()} is an admission and nothing is sent), else a permit of the circuit
   * and the call to make (asking for a lease, and giving back a spent one, as need be).
   */
  public Pending begin(String provider, List<RuleBucket> rules, int cost, boolean shadow) {
    long now = nanoTime.getAsLong();
    RuleSet set = maxLease == 0 ? null : ruleSets.computeIfAbsent(keyOf(rules), k -> new RuleSet());
    List<BucketSpec> specs = set == null ? null : specsOf(rules);
    if (set != null) {
      set.demand.record(cost, now);
      if (set.lease != null && !set.leaseSpecs.equals(specs)) {
        // A quota changed (a reload, the tenant registry) since the lease was sold: deciding from
        // it would keep the old terms until it is spent, as much as a lease target of demand
        // (issue 34, 7). As a single-rule lease (GateLimiter.forgetWhatTheOldSpecSold), the next
        // event goes to the script, which applies the change. The lease is dropped without being
        // given back: its unused units stay charged until the buckets let it go. Stricter, never
        // looser.
        set.lease = null;
        set.leaseSpecs = null;
      }
      if (set.lease != null) {
        long admitted = set.lease.take(cost, now);
        if (admitted >= 0) {
          return new Pending(new LimiterDecision.Admit(admitted / 1000), null, provider, shadow, null, 0, null);
        }
      }
    }
    Optional<RedisCircuit.Permit> permit = circuit.tryAcquire();
    if (permit.isEmpty()) {
      return new Pending(new LimiterDecision.Unavailable("circuit open after a Redis failure"), null, provider,
          shadow, null, 0, null);
    }
    // A caller that leases names the hold on every call: a lost bucket may have been leased out
    // (quota_rules.lua, "Lost data").
    TokenBucketStore.RulesCall call = set == null ? new TokenBucketStore.RulesCall(rules, cost)
        : new TokenBucketStore.RulesCall(rules, cost, cost, holdMicros, null);
    RuleSet asking = null;
    if (set != null && !set.asking) {
      RulesRelease release = set.lease == null ? null : set.lease.release(now);
      set.lease = null;
      int extra = set.demand.extraUnitsSinceFirstSeen(leaseTargetSeconds, maxLease);
      if (extra > 0 || release != null) {
        call = new TokenBucketStore.RulesCall(rules, cost, cost + Math.max(0, extra), holdMicros, release);
        asking = set;
        set.asking = true;
        set.askingSpecs = specs;
      }
    }
    return new Pending(null, call, provider, shadow, permit.get(), now, asking);
  }

  private static List<BucketSpec> specsOf(List<RuleBucket> rules) {
    List<BucketSpec> specs = new ArrayList<>(rules.size());
    rules.forEach(r -> specs.add(r.spec()));
    return specs;
  }

  private static String keyOf(List<RuleBucket> rules) {
    if (rules.size() == 1) {
      return rules.get(0).redisKey();
    }
    StringBuilder key = new StringBuilder();
    for (RuleBucket r : rules) {
      key.append(r.redisKey()).append('\n');
    }
    return key.toString();
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
    if (p.asking != null) {
      p.asking.asking = false;
      if (a.leaseUnits() > 0) {
        p.asking.lease = new RulesLease(a, useMicros, p.sentNanos, nanoTime.getAsLong());
        p.asking.leaseSpecs = p.asking.askingSpecs;
      }
    }
    if (a.isGranted()) {
      return new LimiterDecision.Admit(a.nowMicros() / 1000);
    }
    long at = LimiterDecision.ceilMillis(a.nowMicros() + a.waitMicros());
    return p.shadow ? new LimiterDecision.WouldDefer(at) : new LimiterDecision.Queued(at);
  }

  /** {@code p}'s call failed or was not answered in time. */
  public LimiterDecision fail(Pending p, Throwable e) {
    p.permit.failed(e);
    if (p.asking != null) {
      p.asking.asking = false;
    }
    if (e instanceof InterruptedException) {
      Thread.currentThread().interrupt();
      return new LimiterDecision.Unavailable("interrupted");
    }
    Throwable t = e.getCause() != null && !(e instanceof TimeoutException) ? e.getCause() : e;
    return new LimiterDecision.Unavailable(t.getClass().getSimpleName() + ": " + t.getMessage());
  }
}
