package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The store seam backed by {@link TokenBucketMath} in memory, on a clock the test controls: for
 * fast topology tests of routing. It is not a stand-in for Redis in any test of Redis behaviour
 * (those run the script on a real redis-server). {@link #failing(boolean)} makes every call fail
 * the way an unreachable Redis does, to exercise the onRedisDown policies.
 */
public final class InMemoryTokenBucketStore implements TokenBucketStore {
  private final Map<BucketKey, BucketState> states = new HashMap<>();
  private final Map<String, QuotaRulesMath.Level> ruleStates = new HashMap<>();
  private final LongSupplier nowMicros;
  private volatile boolean failing;
  private int calls;

  public InMemoryTokenBucketStore(LongSupplier nowMicros) {
    this.nowMicros = nowMicros;
  }

  public void failing(boolean fail) {
    this.failing = fail;
  }

  public synchronized int calls() {
    return calls;
  }

  @Override
  public synchronized CompletionStage<Acquisition> acquire(BucketKey key, BucketSpec spec, AcquireRequest request) {
    calls++;
    if (failing) {
      return CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
    }
    TokenBucketMath.Step step = TokenBucketMath.acquire(states.get(key), spec, request, nowMicros.getAsLong());
    states.put(key, step.next());
    return CompletableFuture.completedFuture(step.acquisition());
  }

  @Override
  public synchronized CompletionStage<RulesAcquisition> acquireAll(List<RuleBucket> buckets, int need) {
    return acquireAllBatch(List.of(new RulesCall(buckets, need))).thenApply(list -> list.get(0));
  }

  @Override
  public synchronized CompletionStage<List<RulesAcquisition>> acquireAllBatch(List<RulesCall> batch) {
    calls++;
    if (failing) {
      return CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
    }
    long now = nowMicros.getAsLong();
    List<RulesAcquisition> answers = new ArrayList<>();
    for (int e = 0; e < batch.size(); e++) {
      List<RuleBucket> buckets = batch.get(e).buckets();
      List<QuotaRulesMath.Level> levels = new ArrayList<>();
      List<BucketSpec> specs = new ArrayList<>();
      for (RuleBucket b : buckets) {
        levels.add(ruleStates.get(b.redisKey()));
        specs.add(b.spec());
      }
      QuotaRulesMath.Step step = QuotaRulesMath.acquire(levels, specs, batch.get(e), now, 0, e + 1);
      for (int i = 0; i < buckets.size(); i++) {
        if (step.next().get(i) != null) {
          ruleStates.put(buckets.get(i).redisKey(), step.next().get(i));
        }
      }
      answers.add(step.acquisition());
    }
    return CompletableFuture.completedFuture(answers);
  }

  /** A multi-rule bucket as stored, or null if it was never charged. */
  public synchronized QuotaRulesMath.Level ruleState(String redisKey) {
    return ruleStates.get(redisKey);
  }

  /** A multi-rule bucket's stored level, or null if it was never charged. */
  public synchronized Double ruleLevel(String redisKey) {
    QuotaRulesMath.Level l = ruleStates.get(redisKey);
    return l == null ? null : l.tokens();
  }
}
