/**
 * A provider's capacity: the leaky bucket every instance claims call slots from ({@code LeakMath},
 * the mirror of {@code leaky_bucket.lua}; {@code RedisLeakyBucket}; {@code LocalLeakyBucket}, the
 * in-process fallback; {@code FailoverLeakyBucket} between them), and the limits beyond the rate
 * ({@code ProviderLimits}, {@code LimitMath}).
 */
package io.sluice.dispatcher.leak;
