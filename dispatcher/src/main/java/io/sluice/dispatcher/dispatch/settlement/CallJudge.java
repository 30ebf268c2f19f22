package io.sluice.dispatcher.dispatch.settlement;

import io.sluice.config.AnswerBounds;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.RetryAfter;
import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.dispatcher.provider.ProviderResult;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.function.DoubleSupplier;

/**
 * Judges a call's result: the event's {@link Verdict} ({@link FeedbackPolicy}), and how long the
 * call's lane must pause. Pure: time and randomness are passed in.
 *
 * <p>The pause: a provider that answers "too many" (429, or 503) asks every caller to stay away,
 * for its {@code Retry-After} or, without one, one backoff base. That holds whatever becomes of
 * this event: a retried one and one dead (its last attempt, or past its deadline) pause the lane
 * alike, since the next event's call would meet the same refusal.
 *
 * <p>A {@code Retry-After} longer than the provider's {@code maxRetryAfter} (5 min by default)
 * pauses the lane, and waits the event, {@code maxRetryAfter}: a provider answering
 * {@code Retry-After: 86400}, or milliseconds where seconds belong, stops nothing for a day. The
 * judgement says what was asked, so the caller can count and log the clamp.
 */
public final class CallJudge {
  /**
   * The event's verdict, the lane's pause in milliseconds (empty: no pause), and the
   * {@code Retry-After} asked when it was longer than the pause (empty: nothing clamped).
   */
  public record Judgement(Verdict verdict, OptionalLong pauseMillis, OptionalLong askedMillis) {
    Judgement(Verdict verdict, OptionalLong pauseMillis) {
      this(verdict, pauseMillis, OptionalLong.empty());
    }
  }

  private final FeedbackPolicy feedback;
  private final long backoffBaseMillis;

  public CallJudge(FeedbackPolicy feedback, Duration backoffBase) {
    this.feedback = feedback;
    this.backoffBaseMillis = backoffBase.toMillis();
  }

  /**
   * @param priorAttempts provider failures before this call
   * @param deadline      the event's deadline, or null
   */
  public Judgement judge(ProviderResult result, int priorAttempts, Instant deadline, Instant now,
      DoubleSupplier uniform01) {
    return judge(result, priorAttempts, deadline, now, uniform01,
        AnswerBounds.DEFAULT.maxRetryAfterMillis());
  }

  /** @param maxRetryAfterMillis the provider's {@code maxRetryAfter} */
  public Judgement judge(ProviderResult result, int priorAttempts, Instant deadline, Instant now,
      DoubleSupplier uniform01, long maxRetryAfterMillis) {
    Verdict verdict = feedback.judge(result, priorAttempts, deadline, now, uniform01,
        maxRetryAfterMillis);
    if (result instanceof ProviderResult.Answered a && (a.status() == 429 || a.status() == 503)) {
      OptionalLong asked = RetryAfter.asked(a.retryAfter(), now);
      long pause = asked.isPresent() ? Math.min(asked.getAsLong(), maxRetryAfterMillis)
          : backoffBaseMillis;
      return new Judgement(verdict, OptionalLong.of(pause),
          asked.isPresent() && asked.getAsLong() > pause ? asked : OptionalLong.empty());
    }
    return new Judgement(verdict, OptionalLong.empty());
  }
}
