package io.sluice.dispatcher.feedback;

/**
 * A limit learned from the provider's answers: at most {@code quota} units per
 * {@code windowMillis}, as the provider counts them.
 *
 * @param name            the provider's name for it (the IETF policy name, or
 *                        {@code x-ratelimit[-requests|-tokens]}); one learned limit per name
 * @param expiresAtMillis when it fades unless the provider says it again (on the clock of whoever
 *                        stored it; see {@link LimitLearning#ttlMillis})
 */
public record LearnedLimit(String name, LimitUnit unit, long quota, long windowMillis,
    long expiresAtMillis) {
  public LearnedLimit {
    if (quota < 0 || windowMillis <= 0) {
      throw new IllegalArgumentException("quota " + quota + " per " + windowMillis + " ms");
    }
  }

  /** Same limit, regardless of when it expires. */
  public boolean sameAs(LearnedLimit other) {
    return other != null && name.equals(other.name) && unit == other.unit
        && quota == other.quota && windowMillis == other.windowMillis;
  }

  /** Calls or cost units per second, on average over the window. */
  public double perSecond() {
    return quota * 1000.0 / windowMillis;
  }
}
