package io.sluice.dispatcher.feedback;

import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.schemas.event.Reason;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.function.DoubleSupplier;

/**
 * Turns one provider result into a {@link Verdict}. Pure: time and randomness are passed in.
 *
 * <table>
 *   <caption>The rules</caption>
 *   <tr><th>result</th><th>verdict</th></tr>
 *   <tr><td>2xx</td><td>delivered</td></tr>
 *   <tr><td>429, 503</td><td>retry after {@code Retry-After} (else backoff), and throttle the
 *       provider's leak: reason {@code provider_429} (503: {@code provider_5xx})</td></tr>
 *   <tr><td>other 5xx</td><td>retry after backoff, {@code provider_5xx}</td></tr>
 *   <tr><td>timeout</td><td>retry after backoff, {@code timeout}</td></tr>
 *   <tr><td>no connection</td><td>retry after backoff, {@code connect_error}</td></tr>
 *   <tr><td>no request could be built (the event's fault)</td><td>dead, {@code invalid}; not an
 *       attempt</td></tr>
 *   <tr><td>anything else (4xx, 3xx, 1xx)</td><td>dead, {@code non_retryable_4xx}</td></tr>
 * </table>
 *
 * <p>Every failure counts as an attempt, including 429: a provider that keeps refusing an event
 * must not keep it alive forever. Waiting in the buffer, for a leak slot or for the gate never
 * counts: only {@link #judge} increments attempts. A retry that would reach
 * {@code maxAttempts} failures is dead with {@code max_attempts}; one whose wait would end past
 * the event's deadline is dead with {@code expired} now, rather than after a pointless wait.
 */
public record FeedbackPolicy(int maxAttempts, Backoff backoff) {

  /**
   * @param priorAttempts provider failures before this call (the {@code sluice-attempt} header)
   * @param deadline      the event's deadline, or null
   */
  public Verdict judge(ProviderResult result, int priorAttempts, Instant deadline, Instant now,
      DoubleSupplier uniform01) {
    return judge(result, priorAttempts, deadline, now, uniform01,
        io.sluice.config.AnswerBounds.DEFAULT.maxRetryAfterMillis());
  }

  /**
   * @param maxRetryAfterMillis the longest {@code Retry-After} honoured (the provider's
   *                            {@code maxRetryAfter}): a longer one waits this long
   */
  public Verdict judge(ProviderResult result, int priorAttempts, Instant deadline, Instant now,
      DoubleSupplier uniform01, long maxRetryAfterMillis) {
    if (result instanceof ProviderResult.Unsendable u) {
      // Nothing reached the provider, and retrying cannot fix the event.
      return new Verdict.Dead(Reason.INVALID, "the event cannot be sent as an HTTP request: "
          + u.detail(), priorAttempts);
    }
    int attempts = priorAttempts + 1;
    Reason reason;
    String detail;
    OptionalLong asked = OptionalLong.empty();
    boolean throttled = false;
    if (result instanceof ProviderResult.Answered a) {
      int status = a.status();
      if (status >= 200 && status < 300) {
        return new Verdict.Delivered(status);
      }
      if (status == 429 || status == 503) {
        reason = status == 429 ? Reason.PROVIDER_429 : Reason.PROVIDER_5XX;
        detail = "provider answered " + status
            + (a.retryAfter() == null ? "" : " with Retry-After: " + a.retryAfter());
        asked = RetryAfter.millis(a.retryAfter(), now, maxRetryAfterMillis);
        throttled = true;
      } else if (status >= 500) {
        reason = Reason.PROVIDER_5XX;
        detail = "provider answered " + status;
      } else {
        return new Verdict.Dead(Reason.NON_RETRYABLE_4XX,
            "provider answered " + status + ", which retrying cannot fix", attempts);
      }
    } else if (result instanceof ProviderResult.TimedOut t) {
      reason = Reason.TIMEOUT;
      detail = "no answer in time: " + t.detail();
    } else {
      reason = Reason.CONNECT_ERROR;
      detail = "no connection: " + ((ProviderResult.ConnectFailed) result).detail();
    }
    if (attempts >= maxAttempts) {
      return new Verdict.Dead(Reason.MAX_ATTEMPTS,
          attempts + " provider failures (maxAttempts " + maxAttempts + "), the last: " + detail,
          attempts);
    }
    long wait = asked.isPresent() ? asked.getAsLong() : backoff.delayMillis(attempts, uniform01);
    if (deadline != null && now.plusMillis(wait).isAfter(deadline)) {
      return new Verdict.Dead(Reason.EXPIRED,
          "the retry after " + wait + " ms would pass the deadline " + deadline + "; last: "
              + detail, attempts);
    }
    return new Verdict.Retry(reason, detail, wait, attempts, throttled);
  }
}
