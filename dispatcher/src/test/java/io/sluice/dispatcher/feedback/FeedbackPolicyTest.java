package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.schemas.event.Reason;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class FeedbackPolicyTest {
  private static final Instant NOW = Instant.parse("2026-11-21T10:00:00Z");
  private final FeedbackPolicy policy =
      new FeedbackPolicy(8, new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5)));

  private Verdict judge(ProviderResult result, int prior, Instant deadline) {
    return policy.judge(result, prior, deadline, NOW, () -> 0.5);
  }

  private static ProviderResult status(int code) {
    return new ProviderResult.Answered(code, null);
  }

  @Test
  @DisplayName("2xx is delivered")
  void delivered() {
    assertEquals(new Verdict.Delivered(200), judge(status(200), 0, null));
    assertEquals(new Verdict.Delivered(204), judge(status(204), 3, null));
  }

  @Test
  @DisplayName("429 waits exactly its Retry-After, counts an attempt and throttles the provider")
  void tooManyHonoursRetryAfter() {
    Verdict v = judge(new ProviderResult.Answered(429, "2"), 0, null);
    Verdict.Retry r = assertInstanceOf(Verdict.Retry.class, v);
    assertEquals(Reason.PROVIDER_429, r.reason());
    assertEquals(2_000, r.waitMillis());
    assertEquals(1, r.attempts());
    assertTrue(r.throttled());
  }

  @Test
  @DisplayName("503 with an HTTP-date Retry-After throttles too, as provider_5xx")
  void unavailableWithDate() {
    Verdict v = judge(new ProviderResult.Answered(503, "Sat, 21 Nov 2026 10:00:30 GMT"), 1, null);
    Verdict.Retry r = assertInstanceOf(Verdict.Retry.class, v);
    assertEquals(Reason.PROVIDER_5XX, r.reason());
    assertEquals(30_000, r.waitMillis());
    assertEquals(2, r.attempts());
    assertTrue(r.throttled());
  }

  @Test
  @DisplayName("429 without Retry-After falls back to the jittered backoff")
  void tooManyWithoutHeader() {
    Verdict.Retry r = assertInstanceOf(Verdict.Retry.class, judge(status(429), 2, null));
    assertEquals(2_000, r.waitMillis(), "attempt 3: bound 4 s, uniform 0.5 -> 2 s");
  }

  @Test
  @DisplayName("5xx, timeouts and refused connections retry with backoff, without throttling")
  void retryableFailures() {
    Verdict.Retry a = assertInstanceOf(Verdict.Retry.class, judge(status(500), 0, null));
    assertEquals(Reason.PROVIDER_5XX, a.reason());
    assertEquals(500, a.waitMillis(), "attempt 1: bound 1 s, uniform 0.5");
    assertFalse(a.throttled());
    Verdict.Retry b = assertInstanceOf(Verdict.Retry.class,
        judge(new ProviderResult.TimedOut("5s"), 0, null));
    assertEquals(Reason.TIMEOUT, b.reason());
    Verdict.Retry c = assertInstanceOf(Verdict.Retry.class,
        judge(new ProviderResult.ConnectFailed("refused"), 0, null));
    assertEquals(Reason.CONNECT_ERROR, c.reason());
  }

  @Test
  @DisplayName("other 4xx are dead at once as non_retryable_4xx")
  void nonRetryable() {
    for (int code : new int[] {400, 401, 404, 409, 422}) {
      Verdict.Dead d = assertInstanceOf(Verdict.Dead.class, judge(status(code), 0, null));
      assertEquals(Reason.NON_RETRYABLE_4XX, d.reason());
      assertTrue(d.detail().contains(String.valueOf(code)));
    }
  }

  @Test
  @DisplayName("the failure that reaches maxAttempts is dead with max_attempts")
  void maxAttempts() {
    assertInstanceOf(Verdict.Retry.class, judge(status(500), 6, null));
    Verdict.Dead d = assertInstanceOf(Verdict.Dead.class, judge(status(500), 7, null));
    assertEquals(Reason.MAX_ATTEMPTS, d.reason());
    assertEquals(8, d.attempts());
  }

  @Test
  @DisplayName("a retry that would end past the deadline is dead now, as expired")
  void deadline() {
    Verdict.Dead d = assertInstanceOf(Verdict.Dead.class,
        judge(new ProviderResult.Answered(429, "60"), 0, NOW.plusSeconds(30)));
    assertEquals(Reason.EXPIRED, d.reason());
    assertInstanceOf(Verdict.Retry.class,
        judge(new ProviderResult.Answered(429, "10"), 0, NOW.plusSeconds(30)));
  }
}
