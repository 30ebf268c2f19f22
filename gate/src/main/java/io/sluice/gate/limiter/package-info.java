/**
 * A tenant's quota: the token bucket with reservations, tickets and leases ({@code
 * TokenBucketMath}, the mirror of {@code token_bucket.lua}), the multi-rule buckets ({@code
 * QuotaRulesMath}), their Redis keys ({@code BucketKey}, {@code RuleKeys}) and stores, and the
 * in-process fallback ({@code LocalBuckets}).
 */
package io.sluice.gate.limiter;
