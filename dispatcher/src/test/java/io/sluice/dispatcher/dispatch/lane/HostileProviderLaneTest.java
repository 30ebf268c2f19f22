package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.LaneId;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.settlement.CallJudge;
import io.sluice.dispatcher.feedback.Backoff;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.LearnedLimitStore;
import io.sluice.dispatcher.feedback.LearningLimitSource;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.ResponseHeaders;
import io.sluice.testkit.FakeClock;
import io.sluice.config.AnswerBounds;
import io.sluice.schemas.event.WorkEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * A provider whose first answer is as hostile as answers get (issue 20): a 429 with
 * {@code Retry-After: 86400}, a policy of quota 0 for a month, one call a day, nothing remaining
 * until a reset a day away. The lane, its learner and the in-process leak on a fake clock, judged
 * as the dispatcher judges ({@link CallJudge}, then {@link LimitLearner#answered}). What is
 * observed: when calls start again, and how fast.
 */
class HostileProviderLaneTest {
  private static final long MS = 1_000_000;
  /** 20 calls a second configured: the floor (0.1) is 2 a second. */
  private static final double RATE = 20;
  private static final ResponseHeaders HOSTILE = ResponseHeaders.of(
      "RateLimit-Policy", "\"trap\";q=0;w=2678400, \"daily\";q=1;w=86400",
      "RateLimit", "\"daily\";r=0;t=86400",
      "Retry-After", "86400");

  private final FakeClock clock = FakeClock.atMillis(1_800_000_000_000L);
  private final ManualTimer timer = new ManualTimer(clock);
  private final List<Long> started = new ArrayList<>();
  private final LimitLearner learner = new LimitLearner(LearnedLimitStore.NONE, clock::millis,
      () -> 0.5, LimitLearner.Listener.NONE);
  private final CallJudge judge = new CallJudge(
      new FeedbackPolicy(8, new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5))),
      Duration.ofSeconds(1));
  private final ProviderLane lane = new ProviderLane(
        new ProviderLane.Settings(LaneId.provider("api"), 60_000_000, 4, 100_000,
            Map.of("std", 1.0), 1000),
        new ProviderLane.Calls(new LearningLimitSource("api", LimitSource.fixed(ProviderLimits.rateOnly(RATE)), learner), call -> {
        started.add(clock.nanos());
        return CompletableFuture.completedFuture(started.size() == 1
            ? new ProviderResult.Answered(429, "86400", HOSTILE)
            : new ProviderResult.Answered(200, null, ResponseHeaders.NONE));
      }, new PublishingLeak(new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros),
          (member, busy) -> CompletableFuture.completedFuture(busy))),
        new LaneHooks(timer, (lane, entry, result, claimedAtMicros) -> {
        // As the Settler: the verdict's pause, then what the answer teaches.
        CallJudge.Judgement j = judge.judge(result, 0, null, clock.instant(), () -> 0.5,
            learner.bounds("api").maxRetryAfterMillis());
        List<LaneOrder> first = new ArrayList<>();
        j.pauseMillis().ifPresent(p -> first.add(new LaneOrder.Throttle(p, claimedAtMicros)));
        return Settlement.of(first, () -> {
          java.util.OptionalLong hold = learner.answered("api", result, 1);
          return hold.isPresent() ? List.of(new LaneOrder.Throttle(hold.getAsLong(), 0))
              : List.of();
        });
      }, new DispatchListener() { }, (entry, why) -> { }, clock::nanos, Pace.FULL));

  @Test
  void shouldCallAgainWithinMaxRetryAfterAndThenAtNoLessThanTheFloor() {
    for (int i = 0; i < 100; i++) {
      lane.offer(entry(i));
    }
    timer.advance(Duration.ofMinutes(6));

    assertTrue(started.size() > 1, "no call after the hostile answer in 6 minutes");
    long resumedAfter = started.get(1) - started.get(0);
    assertTrue(resumedAfter >= 300_000 * MS && resumedAfter <= 302_000 * MS,
        "the second call came " + resumedAfter / MS + " ms after the first, not maxRetryAfter (5 min)");
    long calls = started.stream().filter(t -> t - started.get(1) < 10_000 * MS).count();
    assertTrue(calls >= 19, calls + " calls in the 10 s after resuming: not the floor of 2/s");
    assertTrue(calls <= 21, calls + " calls in 10 s: faster than the learned pace allows");
  }

  @Test
  void shouldIgnoreTheHeadersWithLearningOff() {
    learner.bound(Map.of("api", new AnswerBounds(false, 0.1, Duration.ofSeconds(30))));
    for (int i = 0; i < 100; i++) {
      lane.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(35));

    long resumedAfter = started.get(1) - started.get(0);
    assertTrue(resumedAfter >= 30_000 * MS && resumedAfter <= 31_000 * MS,
        "the Retry-After is held to this provider's maxRetryAfter, 30 s: " + resumedAfter / MS);
    assertTrue(started.size() >= 80, started.size() + " calls: the configured 20/s after it");
  }

  private static DispatchEntry entry(int i) {
    String id = "e" + i;
    String json = "{\"id\":\"" + id + "\",\"tenant\":\"t\",\"provider\":\"api\"}";
    return new DispatchEntry(new TopicPartition("ready", 0), 0, i, "t".getBytes(UTF_8),
        json.getBytes(UTF_8), new RecordHeaders(), new WorkEvent(id, "t", "api", 1, null,
        null, null, Map.of()), "std", 0, null);
  }
}
