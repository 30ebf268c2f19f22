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

  /**
   * Charges {@code need} units to every bucket, or to none ({@code quota_rules.lua}, mirrored by
   * {@link QuotaRulesMath}): the multi-rule path. A store that serves only single-rule buckets
   * refuses it.
   */
  default CompletionStage<RulesAcquisition> acquireAll(List<RuleBucket> buckets, int need) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no multi-rule buckets");
  }
}
