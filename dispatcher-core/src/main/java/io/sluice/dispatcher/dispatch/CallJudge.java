package io.sluice.dispatcher.dispatch;

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
 */
final class CallJudge {
  /** The event's verdict, and the lane's pause in milliseconds (empty: no pause). */
  record Judgement(Verdict verdict, OptionalLong pauseMillis) {}

  private final FeedbackPolicy feedback;
  private final long backoffBaseMillis;

  CallJudge(FeedbackPolicy feedback, Duration backoffBase) {
    this.feedback = feedback;
    this.backoffBaseMillis = backoffBase.toMillis();
  }

  /**
   * @param priorAttempts provider failures before this call
   * @param deadline      the event's deadline, or null
   */
  Judgement judge(ProviderResult result, int priorAttempts, Instant deadline, Instant now,
      DoubleSupplier uniform01) {
    Verdict verdict = feedback.judge(result, priorAttempts, deadline, now, uniform01);
    if (result instanceof ProviderResult.Answered a && (a.status() == 429 || a.status() == 503)) {
      OptionalLong asked = RetryAfter.millis(a.retryAfter(), now);
      return new Judgement(verdict,
          OptionalLong.of(asked.isPresent() ? asked.getAsLong() : backoffBaseMillis));
    }
    return new Judgement(verdict, OptionalLong.empty());
  }
}
