package io.sluice.dispatcher.dispatch.settlement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.sluice.dispatcher.feedback.Backoff;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.ResponseHeaders;
import io.sluice.schemas.event.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** A call's verdict, and the pause a provider's "too many" imposes on its lane. */
class CallJudgeTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  /** Three attempts; backoff from 500 ms. */
  private final CallJudge judge = new CallJudge(
      new FeedbackPolicy(3, new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30))),
      Duration.ofMillis(500));

  @Test
  void shouldPauseTheLaneForTheRetryAfterOfA429AndRetryTheEvent() {
    CallJudge.Judgement j = judge.judge(answered(429, "2"), 0, null, NOW, () -> 0.5);
    assertEquals(OptionalLong.of(2_000), j.pauseMillis());
    assertEquals(Reason.PROVIDER_429, assertInstanceOf(Verdict.Retry.class, j.verdict()).reason());
  }

  @Test
  void shouldHoldAFarRetryAfterToMaxRetryAfterAndSayWhatWasAsked() {
    CallJudge.Judgement day = judge.judge(answered(429, "86400"), 0, null, NOW, () -> 0.5, 300_000);
    assertEquals(OptionalLong.of(300_000), day.pauseMillis());
    assertEquals(OptionalLong.of(86_400_000), day.askedMillis());
    assertEquals(300_000, assertInstanceOf(Verdict.Retry.class, day.verdict()).waitMillis(),
        "the event waits no longer than the lane");

    CallJudge.Judgement millisAsSeconds = judge.judge(answered(503, "2000"), 0, null, NOW,
        () -> 0.5);
    assertEquals(OptionalLong.of(300_000), millisAsSeconds.pauseMillis(),
        "2000 (milliseconds sent as seconds) waits the default maxRetryAfter, 5 min");

    CallJudge.Judgement within = judge.judge(answered(429, "2"), 0, null, NOW, () -> 0.5, 300_000);
    assertEquals(OptionalLong.empty(), within.askedMillis(), "nothing clamped");
  }

  @Test
  void shouldReadAnHttpDateRetryAfterAgainstNow() {
    assertEquals(OptionalLong.of(5_000), judge.judge(answered(503, "Thu, 01 Jan 2026 00:00:05 GMT"),
        0, null, NOW, () -> 0.5).pauseMillis());
  }

  @Test
  void shouldPauseForOneBackoffBaseWhenTheProviderSaysNotHowLong() {
    assertEquals(OptionalLong.of(500),
        judge.judge(answered(429, null), 0, null, NOW, () -> 0.5).pauseMillis());
  }

  @Test
  void shouldPauseTheLaneEvenWhenTheEventIsDead() {
    CallJudge.Judgement last = judge.judge(answered(429, "2"), 2, null, NOW, () -> 0.5);
    assertEquals(Reason.MAX_ATTEMPTS, assertInstanceOf(Verdict.Dead.class, last.verdict()).reason());
    assertEquals(OptionalLong.of(2_000), last.pauseMillis(),
        "the next event's call would meet the same refusal");
  }

  @Test
  void shouldNotPauseForAnyOtherResult() {
    for (ProviderResult r : new ProviderResult[] {answered(200, null), answered(500, "9"),
        answered(400, null), new ProviderResult.TimedOut("slow"),
        new ProviderResult.ConnectFailed("refused")}) {
      assertEquals(OptionalLong.empty(), judge.judge(r, 0, null, NOW, () -> 0.5).pauseMillis(),
          r.toString());
    }
  }

  private static ProviderResult answered(int status, String retryAfter) {
    return new ProviderResult.Answered(status, retryAfter, ResponseHeaders.NONE);
  }
}
