package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The one seam between the limiter and its storage: decide a request against a bucket
 * atomically. The Redis implementation runs {@code token_bucket.lua}; its answer follows
 * {@link TokenBucketMath} exactly.
 */
public interface TokenBucketStore {
  CompletionStage<Acquisition> acquire(BucketKey key, BucketSpec spec, AcquireRequest request);

  /** One request of a batch: a bucket, its shape and what is asked of it. */
  record BucketCall(BucketKey key, BucketSpec spec, AcquireRequest request) {}

  /**
   * Decides several requests, each exactly as {@link #acquire} would, in the order given, with as
   * few round trips as the store can (the answers in the same order). This default makes one call
   * per request, one after the other.
   */
  default CompletionStage<List<Acquisition>> acquireBatch(List<BucketCall> calls) {
    return inTurn(calls, c -> acquire(c.key(), c.spec(), c.request()));
  }

  /**
   * Charges {@code need} units to every bucket, or to none ({@code quota_rules.lua}, mirrored by
   * {@link QuotaRulesMath}): the multi-rule path. A store that serves only single-rule buckets
   * refuses it.
   */
  default CompletionStage<RulesAcquisition> acquireAll(List<RuleBucket> buckets, int need) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no multi-rule buckets");
  }

  /**
   * One multi-rule event of a batch: its buckets and its cost; and, for a lease across its rules
   * ({@code quota_rules.lua}), the units wanted beyond the cost, how long the buckets hold the
   * lease, and an earlier lease to give back first (null for none).
   */
  record RulesCall(List<RuleBucket> buckets, int need, int want, long holdMicros, RulesRelease release) {
    public RulesCall {
      if (want < need || (want > need && holdMicros <= 0)) {
        throw new IllegalArgumentException("a lease needs want >= need and a hold: " + want + ", " + holdMicros);
      }
    }

    /** An event that takes no lease and gives none back. */
    public RulesCall(List<RuleBucket> buckets, int need) {
      this(buckets, need, need, 0, null);
    }
  }

  /**
   * Decides several multi-rule events, each exactly as {@link #acquireAll} would, in the order
   * given (the answers in the same order). This default makes one call per event, in turn.
   */
  default CompletionStage<List<RulesAcquisition>> acquireAllBatch(List<RulesCall> calls) {
    return inTurn(calls, c -> acquireAll(c.buckets(), c.need()));
  }

  /** Each call in turn, the next sent once the one before is answered; the answers in order. */
  private static <C, A> CompletionStage<List<A>> inTurn(List<C> calls,
      Function<C, CompletionStage<A>> one) {
    CompletableFuture<List<A>> all =
        CompletableFuture.completedFuture(new ArrayList<>());
    for (C c : calls) {
      all = all.thenCompose(list -> one.apply(c).thenApply(a -> {
        list.add(a);
        return list;
      }));
    }
    return all.thenApply(List::copyOf);
  }
}
