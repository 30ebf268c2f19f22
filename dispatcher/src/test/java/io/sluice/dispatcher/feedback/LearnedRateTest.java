package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The steady pace that keeps a provider within every limit it announced. */
class LearnedRateTest {
  private static LearnedLimit calls(long q, long windowMillis) {
    return new LearnedLimit("c" + q, LimitUnit.CALLS, q, windowMillis, Long.MAX_VALUE);
  }

  private static LearnedLimit cost(long q, long windowMillis) {
    return new LearnedLimit("u" + q, LimitUnit.COST, q, windowMillis, Long.MAX_VALUE);
  }

  @Test
  @DisplayName("nothing learned: the configured rate")
  void configured() {
    assertEquals(100.0, LearnedRate.perSecond(100, List.of(), 1));
  }

  @Test
  @DisplayName("a window of a second or less: one call of margin (20/s -> 19/s)")
  void shortWindow() {
    assertEquals(19.0, LearnedRate.perSecond(100, List.of(calls(20, 1_000)), 1), 1e-9);
  }

  @Test
  @DisplayName("a longer window: two calls of margin (600/min -> 9.967/s, 99.7%)")
  void longWindow() {
    assertEquals(598 / 60.0, LearnedRate.perSecond(100, List.of(calls(600, 60_000)), 1), 1e-9);
  }

  @Test
  @DisplayName("a cost limit paces calls by the typical cost (5000/min at 10 a call -> 8.3/s)")
  void costLimit() {
    assertEquals(4980 / 60.0 / 10, LearnedRate.perSecond(100, List.of(cost(5000, 60_000)), 10),
        1e-9);
  }

  @Test
  @DisplayName("the tightest of all learned limits and the configured rate binds")
  void tightest() {
    List<LearnedLimit> all = List.of(calls(20, 1_000), calls(600, 60_000), cost(5000, 60_000));
    assertEquals(4980 / 60.0 / 10, LearnedRate.perSecond(100, all, 10), 1e-9);
    assertEquals(598 / 60.0, LearnedRate.perSecond(100, all, 5), 1e-9);
    assertEquals(4998 / 60.0, LearnedRate.perSecond(100, List.of(cost(5000, 60_000)), 0.5), 1e-9,
        "a cost below 1 counts as 1");
    assertEquals(3.0, LearnedRate.perSecond(3, all, 5), "never above the configured rate");
  }

  @Test
  @DisplayName("a quota too small for a margin gives its plain average; 0 the slowest pace")
  void small() {
    assertEquals(2 / 3600.0, LearnedRate.perSecond(100, List.of(calls(2, 3_600_000)), 1), 1e-12);
    assertEquals(LearnedRate.MIN_PER_SECOND, LearnedRate.perSecond(100, List.of(calls(0, 1_000)), 1));
  }
}
