package io.sluice.config;

import java.time.Duration;

/**
 * What one provider's answers may do to Sluice. A provider's headers are outside input: each
 * bound here caps what a single answer (a mistaken gateway, a hostile or broken provider) can
 * slow or stop.
 *
 * @param learn         learn the provider's limits from its rate-limit headers at all; false
 *                      leaves the configured limits alone ({@code Retry-After} on a 429 or 503
 *                      still pauses, within {@code maxRetryAfter})
 * @param learnedFloor  learned limits lower the configured ones to no less than this fraction of
 *                      them, in (0, 1]: the rate, and the amount of a configured window of the
 *                      same length; a learned window with no configured counterpart holds at
 *                      least this fraction of what the configured rate could send in it
 * @param maxRetryAfter the longest any one answer holds the provider: {@code Retry-After} on a
 *                      429 or 503, a reset with nothing remaining, a quota of 0. Longer asks are
 *                      clamped to this (and logged)
 */
public record AnswerBounds(boolean learn, double learnedFloor, Duration maxRetryAfter) {
  public static final AnswerBounds DEFAULT = new AnswerBounds(ConfigDefaults.LEARN,
      ConfigDefaults.LEARNED_FLOOR, ConfigDefaults.MAX_RETRY_AFTER);

  public AnswerBounds {
    if (!(learnedFloor > 0 && learnedFloor <= 1)) {
      throw new IllegalArgumentException("learnedFloor must be in (0, 1], not " + learnedFloor);
    }
    if (maxRetryAfter == null || maxRetryAfter.isNegative()) {
      throw new IllegalArgumentException("maxRetryAfter must be a duration of at least 0");
    }
  }

  public long maxRetryAfterMillis() {
    return maxRetryAfter.toMillis();
  }
}
