package io.sluice.topology.limiter;

import java.util.List;
import java.util.concurrent.CompletionStage;

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
    java.util.concurrent.CompletableFuture<List<Acquisition>> all =
        java.util.concurrent.CompletableFuture.completedFuture(new java.util.ArrayList<>());
    for (BucketCall c : calls) {
      all = all.thenCompose(list -> acquire(c.key(), c.spec(), c.request())
          .thenApply(a -> {
            list.add(a);
            return list;
          }));
    }
    return all.thenApply(List::copyOf);
  }

  /**
   * Charges {@code need} units to every bucket, or to none ({@code quota_rules.lua}, mirrored by
   * {@link QuotaRulesMath}): the multi-rule path. A store that serves only single-rule buckets
   * refuses it.
   */
  default CompletionStage<RulesAcquisition> acquireAll(List<RuleBucket> buckets, int need) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no multi-rule buckets");
  }
}
