package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.config.ProviderLimit;
import io.sluice.config.ProviderLimit.Window;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The limits a lane enforces: the configured ones, lowered to what the provider announced. */
class LearningLimitSourceTest {
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private static LearnedLimit learned(LimitUnit unit, long q, long windowMillis) {
    return new LearnedLimit(unit.label() + q, unit, q, windowMillis, Long.MAX_VALUE);
  }

  @Test
  @DisplayName("nothing learned: the configured limits, unchanged")
  void nothingLearned() {
    ProviderLimits configured = ProviderLimits.rateOnly(100);
    LimitLearner learner = LimitLearner.local(LimitLearner.Listener.NONE);
    assertSame(configured, new LearningLimitSource("p", LimitSource.fixed(configured), learner)
        .current());
  }

  @Test
  @DisplayName("a window nobody configured is added as a sliding window; the rate is paced")
  void added() {
    ProviderLimits out = LearningLimitSource.lowered(ProviderLimits.rateOnly(100),
        List.of(learned(LimitUnit.CALLS, 600, 60_000), learned(LimitUnit.COST, 5000, 60_000)),
        8.3, 0.1);
    assertEquals(List.of(ProviderLimit.rate(8.3), ProviderLimit.calls(600, MINUTE, Window.SLIDING),
        ProviderLimit.cost(5000, MINUTE, Window.SLIDING)), out.all());
  }

  @Test
  @DisplayName("a configured window of the same length is lowered, never raised, and keeps its kind of window")
  void lowered() {
    ProviderLimits configured = new ProviderLimits(List.of(ProviderLimit.rate(50),
        ProviderLimit.calls(1000, MINUTE, Window.FIXED), ProviderLimit.cost(3000, MINUTE, Window.SLIDING)));
    ProviderLimits out = LearningLimitSource.lowered(configured,
        List.of(learned(LimitUnit.CALLS, 600, 60_000), learned(LimitUnit.COST, 5000, 60_000)), 60,
        0.1);
    assertEquals(List.of(ProviderLimit.rate(50), ProviderLimit.calls(600, MINUTE, Window.FIXED),
        ProviderLimit.cost(3000, MINUTE, Window.SLIDING)), out.all());
  }

  @Test
  @DisplayName("the floor: no learned limit takes a configured window below learnedFloor of its amount, nor adds one below learnedFloor of what the rate sends in it")
  void floor() {
    ProviderLimits configured = new ProviderLimits(List.of(ProviderLimit.rate(20),
        ProviderLimit.calls(1000, MINUTE, Window.FIXED)));
    ProviderLimits out = LearningLimitSource.lowered(configured,
        List.of(learned(LimitUnit.CALLS, 3, 60_000), learned(LimitUnit.CALLS, 1, 86_400_000)), 2,
        0.1);
    assertEquals(List.of(ProviderLimit.rate(2), ProviderLimit.calls(100, MINUTE, Window.FIXED),
        ProviderLimit.calls(172_800, Duration.ofDays(1), Window.SLIDING)), out.all());
  }

  @Test
  @DisplayName("a hostile answer (q=0 for a month, q=1 a day) paces at learnedFloor of the configured rate, and says so")
  void hostileAnswerPacesAtTheFloor() {
    java.util.List<LimitLearner.Bound> bounded = new java.util.ArrayList<>();
    LimitLearner learner = new LimitLearner(LearnedLimitStore.NONE, () -> 1_000_000L, () -> 0.5,
        new LimitLearner.Listener() {
          @Override
          public void bounded(String provider, LimitLearner.Bound bound) {
            bounded.add(bound);
          }
        });
    LimitSource source = new LearningLimitSource("p", LimitSource.fixed(ProviderLimits.rateOnly(20)),
        learner);
    OptionalLong hold = learner.answered("p",
        new io.sluice.dispatcher.provider.ProviderResult.Answered(200, null,
            io.sluice.dispatcher.provider.ResponseHeaders.of("RateLimit-Policy",
                "\"x\";q=0;w=2678400, \"daily\";q=1;w=86400")), 1);

    assertEquals(OptionalLong.of(300_000), hold, "q=0 holds for maxRetryAfter, no longer");
    ProviderLimits now = source.current();
    assertEquals(2.0, now.ratePerSecond(), 1e-9);
    assertEquals(List.of(ProviderLimit.calls(172_800, Duration.ofDays(1), Window.SLIDING)),
        now.beyondRate());
    assertEquals(List.of(LimitLearner.Bound.HOLD, LimitLearner.Bound.FLOOR), bounded);
  }

  @Test
  @DisplayName("learn: false: answers change nothing")
  void learningOff() {
    LimitLearner learner = LimitLearner.local(LimitLearner.Listener.NONE);
    learner.bound(java.util.Map.of("p", new io.sluice.config.AnswerBounds(false, 0.1,
        Duration.ofMinutes(5))));
    ProviderLimits configured = ProviderLimits.rateOnly(100);
    LimitSource source = new LearningLimitSource("p", LimitSource.fixed(configured), learner);
    assertEquals(OptionalLong.empty(), learner.answered("p",
        new io.sluice.dispatcher.provider.ProviderResult.Answered(200, null,
            io.sluice.dispatcher.provider.ResponseHeaders.of("RateLimit-Policy",
                "\"s\";q=0;w=60, \"m\";q=6;w=60")), 1));
    assertSame(configured, source.current());
  }

  @Test
  @DisplayName("wired to a learner: what an answer announces is enforced on the next claim")
  void fromAnswers() {
    LimitLearner learner = LimitLearner.local(LimitLearner.Listener.NONE);
    LimitSource source = new LearningLimitSource("p", LimitSource.fixed(ProviderLimits.rateOnly(20)),
        learner);
    assertEquals(OptionalLong.empty(), learner.answered("p",
        new io.sluice.dispatcher.provider.ProviderResult.Answered(200, null,
            io.sluice.dispatcher.provider.ResponseHeaders.of("RateLimit-Policy",
                "\"s\";q=20;w=1, \"m\";q=600;w=60")), 1));
    ProviderLimits now = source.current();
    assertEquals(598 / 60.0, now.ratePerSecond(), 1e-9);
    assertEquals(List.of(ProviderLimit.calls(20, Duration.ofSeconds(1), Window.SLIDING),
        ProviderLimit.calls(600, MINUTE, Window.SLIDING)), now.beyondRate());
  }

  @Test
  @DisplayName("asked again with nothing new, it answers the same limits without rebuilding them; a new announcement rebuilds them")
  void cachedUntilSomethingChanges() {
    LimitLearner learner = LimitLearner.local(LimitLearner.Listener.NONE);
    LimitSource source = new LearningLimitSource("p", LimitSource.fixed(ProviderLimits.rateOnly(20)),
        learner);
    announce(learner, "\"m\";q=600;w=60");
    ProviderLimits first = source.current();
    assertSame(first, source.current(), "nothing changed");

    announce(learner, "\"m\";q=300;w=60");
    ProviderLimits lowered = source.current();
    assertEquals(List.of(ProviderLimit.calls(300, MINUTE, Window.SLIDING)), lowered.beyondRate());
    assertSame(lowered, source.current());
  }

  private static void announce(LimitLearner learner, String policy) {
    learner.answered("p", new io.sluice.dispatcher.provider.ProviderResult.Answered(200, null,
        io.sluice.dispatcher.provider.ResponseHeaders.of("RateLimit-Policy", policy)), 1);
  }

  @Test
  @DisplayName("a tenant's endpoint reads what other instances learned every 10 s, a provider every second")
  void endpointsReadLessOften() {
    java.util.concurrent.atomic.AtomicLong now = new java.util.concurrent.atomic.AtomicLong(1_000_000);
    java.util.Map<String, Integer> reads = new java.util.HashMap<>();
    LearnedLimitStore counting = new LearnedLimitStore() {
      @Override
      public java.util.concurrent.CompletionStage<Void> put(String p,
          java.util.Collection<LearnedLimit> limits) {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
      }

      @Override
      public java.util.concurrent.CompletionStage<Void> forget(String p,
          java.util.Collection<String> names) {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
      }

      @Override
      public java.util.concurrent.CompletionStage<List<LearnedLimit>> get(String p, long nowMillis) {
        reads.merge(p, 1, Integer::sum);
        return java.util.concurrent.CompletableFuture.completedFuture(List.of());
      }
    };
    LimitLearner learner = new LimitLearner(counting, now::get, () -> 0.5, LimitLearner.Listener.NONE);
    LimitSource configured = LimitSource.fixed(ProviderLimits.rateOnly(2));
    LimitSource provider = new LearningLimitSource("hooks", configured, learner);
    LimitSource endpoint = new LearningLimitSource("hooks/t1", configured, learner,
        LimitLearner.ENDPOINT_REFRESH_MILLIS);
    for (int ms = 0; ms < 20_000; ms += 500) {   // a claim every half second for 20 s
      provider.current();
      endpoint.current();
      now.addAndGet(500);
    }
    assertEquals(20, reads.get("hooks"));
    assertEquals(2, reads.get("hooks/t1"), "once as it opened, once 10 s later");
  }
}
