package io.sluice.dispatcher.leak;

/**
 * What a {@link LeakyBucket#throttle} did, on the bucket's clock, which read {@code nowMicros}.
 *
 * @param cut               whether this 429 cut the rate (false: the call started before the last
 *                          cut, so it was sent at the old rate and says nothing about the new one)
 * @param rateFactor        the effective rate over the configured one, right after this report
 * @param pausedUntilMicros no slot starts before this
 */
public record ThrottleDecision(long nowMicros, boolean cut, double rateFactor, long pausedUntilMicros) {}
