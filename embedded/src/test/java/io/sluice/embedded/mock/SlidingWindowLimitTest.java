package io.sluice.embedded.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SlidingWindowLimitTest {
  private static final long MS = 1_000_000;

  @Test
  void shouldRefuseTheCallThatWouldMakeTheWindowHoldMoreThanTheLimit() {
    SlidingWindowLimit limit = new SlidingWindowLimit(3, 1000 * MS);
    assertTrue(limit.admit(0));
    assertTrue(limit.admit(400 * MS));
    assertTrue(limit.admit(800 * MS));
    // 999 ms after the first: four calls within one second.
    assertFalse(limit.admit(999 * MS));
    assertEquals(1 * MS, limit.waitNanos(999 * MS), "the first call leaves the window at 1000 ms");
    // Exactly one second after the first, the first has left the window.
    assertTrue(limit.admit(1000 * MS));
  }

  @Test
  void shouldTolerateNoBurstEvenAfterIdleTime() {
    SlidingWindowLimit limit = new SlidingWindowLimit(2, 1000 * MS);
    assertTrue(limit.admit(10_000 * MS));
    assertTrue(limit.admit(10_001 * MS));
    assertFalse(limit.admit(10_002 * MS), "an idle provider banks nothing");
  }

  @Test
  void shouldNotCountRefusedCalls() {
    SlidingWindowLimit limit = new SlidingWindowLimit(1, 1000 * MS);
    assertTrue(limit.admit(0));
    assertFalse(limit.admit(500 * MS));
    assertTrue(limit.admit(1000 * MS), "the refused call at 500 ms took nothing");
  }

  @Test
  void shouldWeighCallsByTheirCostAndSayWhenEnoughHasLeft() {
    SlidingWindowLimit cost = new SlidingWindowLimit(10, 1000 * MS);
    assertTrue(cost.fits(0, 6));
    cost.take(0, 6);
    cost.take(300 * MS, 3);
    assertEquals(1, cost.remaining(400 * MS));
    assertFalse(cost.fits(400 * MS, 2));
    assertEquals(600 * MS, cost.waitNanos(400 * MS, 2), "the 6 units of t=0 leave at 1000 ms");
    assertEquals(900 * MS, cost.waitNanos(400 * MS, 8), "8 fit only once both have left (1300 ms)");
    assertEquals(600 * MS, cost.resetNanos(400 * MS));
    assertTrue(cost.fits(1000 * MS, 7));
  }
}
