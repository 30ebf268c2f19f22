package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.ResponseHeaders;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The learner's own state: what it remembers, and for how long. */
class LimitLearnerTest {
  private final AtomicLong clock = new AtomicLong(1_800_000_000_000L);
  private final LimitLearner learner = new LimitLearner(LearnedLimitStore.NONE, clock::get,
      () -> 0.5, LimitLearner.Listener.NONE);

  private void answer(String policy) {
    learner.answered("p", new ProviderResult.Answered(200, null,
        ResponseHeaders.of("RateLimit-Policy", policy)), 1);
  }

  @Test
  @DisplayName("a retired lane is forgotten: 1,000 endpoint lanes learned from and retired leave nothing behind but the lane still busy")
  void retiredLanesAreForgotten() {
    for (int i = 0; i < 1_000; i++) {
      String lane = "p/tenant-" + i;
      learner.answered(lane, new ProviderResult.Answered(200, null,
          ResponseHeaders.of("RateLimit-Policy", "\"q\";q=100;w=60")), 2);
      learner.refreshIfDue(lane);
      learner.noteBound(lane, LimitLearner.Bound.values()[0], "held back");
    }
    answer("\"q\";q=100;w=60");
    assertEquals(1_001, learner.rememberedLanes());

    for (int i = 0; i < 1_000; i++) {
      learner.forget("p/tenant-" + i);
    }

    assertEquals(1, learner.rememberedLanes(), "only the provider's own lane, still busy");
    assertEquals(1.0, learner.typicalCost("p/tenant-0"), "a forgotten lane starts again from a cost of 1");
    assertTrue(learner.current("p/tenant-0").isEmpty());
  }

  @Test
  @DisplayName("what was written to the store is forgotten once it decides nothing (30 s, pruned each second), whatever names a provider invents")
  void writtenIsPruned() {
    for (int i = 0; i < 10_000; i++) {
      answer("\"n" + i + "\";q=100;w=60");
      clock.addAndGet(10);
    }
    assertTrue(learner.rememberedWrites() <= 3_100, learner.rememberedWrites() + " remembered: "
        + "30 s of names, and at most a second more");

    clock.addAndGet(LimitLearner.REWRITE_MILLIS + LimitLearner.PRUNE_EVERY_MILLIS);
    answer("\"last\";q=100;w=60");

    assertEquals(1, learner.rememberedWrites());
  }

  @Test
  @DisplayName("a header value in a log line or /health is cut to 80 printable characters")
  void excerpts() {
    String cut = LimitLearner.cut("\"x\";q=0;w=2678400\n" + "a".repeat(500));
    assertEquals(83, cut.length());
    assertTrue(cut.startsWith("\"x\";q=0;w=2678400?aaa"));
    assertTrue(cut.endsWith("..."));
  }

  @Test
  @DisplayName("an answer's excerpt shows at most six fields, whatever a provider sends")
  void fewFields() {
    String[] headers = new String[40];
    for (int i = 0; i < 20; i++) {
      headers[2 * i] = "X-RateLimit-Limit-F" + (char) ('a' + i);
      headers[2 * i + 1] = "1";
    }
    String excerpt = LimitLearner.excerpt(new ProviderResult.Answered(200, null,
        ResponseHeaders.of(headers)));
    assertEquals(7, excerpt.split("; ").length - 1, excerpt);
    assertTrue(excerpt.endsWith("; ..."), excerpt);
  }
}
