package io.sluice.topology.limiter;

import java.util.concurrent.CompletionStage;

/**
 * The one seam between the limiter and its storage: decide a request against a bucket
 * atomically. The Redis implementation runs {@code token_bucket.lua}; its answer follows
 * {@link TokenBucketMath} exactly.
 */
public interface TokenBucketStore {
  CompletionStage<Acquisition> acquire(BucketKey key, BucketSpec spec, AcquireRequest request);
}
