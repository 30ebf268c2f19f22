package io.sluice.dispatcher.feedback;

import io.sluice.config.AnswerBounds;
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
 *   <tr><td>no OAuth2 token (not sent)</td><td>retry after 1 s, {@code credential_unavailable};
 *       not an attempt</td></tr>
 *   <tr><td>401 to an OAuth2 token</td><td>retry after 1 s with a new token,
 *       {@code credential_unavailable}, not an attempt; dead, {@code unauthorized}, when the
 *       token was itself fetched after a 401</td></tr>
 * </table>
 *
 * <p>Every failure counts as an attempt, including 429: a provider that keeps refusing an event
 * must not keep it alive forever. Waiting in the buffer, for a leak slot or for the gate never
 * counts: only {@link #judge} increments attempts. A retry that would reach
 * {@code maxAttempts} failures is dead with {@code max_attempts}; one whose wait would end past
 * the event's deadline is dead with {@code expired} now, rather than after a pointless wait.
 */
public record FeedbackPolicy(int maxAttempts, Backoff backoff) {
  /** How long an event waits for its provider's OAuth2 token before it goes again. */
  public static final long CREDENTIAL_WAIT_MILLIS = 1_000;

  /**
   * @param priorAttempts provider failures before this call (the {@code sluice-attempt} header)
   * @param deadline      the event's deadline, or null
   */
  public Verdict judge(ProviderResult result, int priorAttempts, Instant deadline, Instant now,
      DoubleSupplier uniform01) {
    return judge(result, priorAttempts, deadline, now, uniform01,
        AnswerBounds.DEFAULT.maxRetryAfterMillis());
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
    if (result instanceof ProviderResult.CredentialUnavailable c) {
      // Nothing was sent: no attempt spent; the lane pauses (CallJudge) while it lasts.
      return new Verdict.Retry(Reason.CREDENTIAL_UNAVAILABLE, c.detail(), CREDENTIAL_WAIT_MILLIS,
          priorAttempts, false);
    }
    if (result instanceof ProviderResult.Unauthorized u) {
      if (u.afterRefusal()) {
        return new Verdict.Dead(Reason.UNAUTHORIZED, u.detail(), priorAttempts + 1);
      }
      // The token was refused: a new one is on its way; the event goes again, no attempt spent.
      return new Verdict.Retry(Reason.CREDENTIAL_UNAVAILABLE, u.detail(), CREDENTIAL_WAIT_MILLIS,
          priorAttempts, false);
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
      String body = a.captured().body() == null ? "" : "; body: " + a.captured().body();
      if (status == 429 || status == 503) {
        reason = status == 429 ? Reason.PROVIDER_429 : Reason.PROVIDER_5XX;
        detail = "provider answered " + status
            + (a.retryAfter() == null ? "" : " with Retry-After: " + a.retryAfter()) + body;
        asked = RetryAfter.millis(a.retryAfter(), now, maxRetryAfterMillis);
        throttled = true;
      } else if (status >= 500) {
        reason = Reason.PROVIDER_5XX;
        detail = "provider answered " + status + body;
      } else {
        return new Verdict.Dead(Reason.NON_RETRYABLE_4XX,
            "provider answered " + status + ", which retrying cannot fix" + body, attempts);
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
