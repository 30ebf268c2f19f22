package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.schemas.config.ProviderLimit;
import io.sluice.schemas.config.ProviderLimit.Window;
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
        8.3);
    assertEquals(List.of(ProviderLimit.rate(8.3), ProviderLimit.calls(600, MINUTE, Window.SLIDING),
        ProviderLimit.cost(5000, MINUTE, Window.SLIDING)), out.all());
  }

  @Test
  @DisplayName("a configured window of the same length is lowered, never raised, and keeps its kind of window")
  void lowered() {
    ProviderLimits configured = new ProviderLimits(List.of(ProviderLimit.rate(50),
        ProviderLimit.calls(1000, MINUTE, Window.FIXED), ProviderLimit.cost(3000, MINUTE, Window.SLIDING)));
    ProviderLimits out = LearningLimitSource.lowered(configured,
        List.of(learned(LimitUnit.CALLS, 600, 60_000), learned(LimitUnit.COST, 5000, 60_000)), 60);
    assertEquals(List.of(ProviderLimit.rate(50), ProviderLimit.calls(600, MINUTE, Window.FIXED),
        ProviderLimit.cost(3000, MINUTE, Window.SLIDING)), out.all());
  }

  @Test
  @DisplayName("wired to a learner: what an answer announces is enforced on the next claim")
  void fromAnswers() {
    LimitLearner learner = LimitLearner.local(LimitLearner.Listener.NONE);
    LimitSource source = new LearningLimitSource("p", LimitSource.fixed(ProviderLimits.rateOnly(100)),
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
    LimitSource source = new LearningLimitSource("p", LimitSource.fixed(ProviderLimits.rateOnly(100)),
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
}
