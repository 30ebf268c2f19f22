package io.sluice.gate.limiter;

/**
 * One of an event's quota rules as a bucket: its Redis key and its shape.
 *
 * @param rule     what the rule is, for metrics and messages: {@code provider}, {@code overall},
 *                 {@code tier} or {@code rule:<name>}
 * @param redisKey where the bucket lives (see {@link RuleKeys})
 * @param spec     its capacity and refill (the horizon is unused: multi-rule events never reserve)
 */
public record RuleBucket(String rule, String redisKey, BucketSpec spec) {}
