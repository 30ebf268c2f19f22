package io.sluice.dispatcher.leak;

import java.util.concurrent.CompletionStage;

/**
 * A provider's leak: the slots at which calls to it may start, spaced {@code 1/rate} apart and
 * shared by every dispatcher instance. One implementation keeps the schedule in Redis (one key per
 * provider); another keeps it in process for when Redis is down.
 *
 * <p>Every instant is on the bucket's clock (Redis {@code TIME}, in microseconds), and every claim
 * says what that clock read, so a caller converts a slot to a local delay ({@code slot - now})
 * without comparing clocks across machines.
 */
public interface LeakyBucket {
  /**
   * Claims up to {@code wanted} consecutive slots, each no later than the bucket's now plus
   * {@code lookaheadMicros}. Slots granted are spent whether or not the caller uses them; a slot is
   * never handed out twice, across all instances.
   *
   * @param ratePerSecond the configured leak rate; a 429 cut lowers the effective rate below it
   */
  CompletionStage<SlotClaim> claim(String provider, double ratePerSecond, int wanted,
      long lookaheadMicros);

  /**
   * Tells the bucket the provider answered 429 or 503: no slot starts before
   * {@code now + retryAfterMillis}, and the rate is cut multiplicatively, at most once per episode
   * (a cut is ignored for calls that started before the last cut: they were sent at the old rate).
   *
   * @param startedAtMicros when the throttled call's slot began, on the bucket's clock
   */
  default CompletionStage<Void> throttled(String provider, double ratePerSecond, long retryAfterMillis,
      long startedAtMicros) {
    return throttle(provider, ratePerSecond, retryAfterMillis, startedAtMicros).thenApply(decision -> null);
  }

  /**
   * {@link #throttled}, saying what it did: whether the rate was cut, the factor now in force and
   * until when calls are paused (for logs and metrics).
   *
   * <p>{@code startedAtMicros}: a slot's time works, but the {@link SlotClaim#nowMicros()} of the
   * claim that granted it is better: slots claimed before a cut were spaced at the old rate even
   * when they start (within the lookahead) after it, so their 429s should not cut again.
   */
  CompletionStage<ThrottleDecision> throttle(String provider, double ratePerSecond, long retryAfterMillis,
      long startedAtMicros);
}
