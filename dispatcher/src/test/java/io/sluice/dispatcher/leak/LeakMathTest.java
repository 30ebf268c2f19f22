package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The leak's arithmetic as timelines: a provider at 50/s (one slot every 20 ms) unless a test says
 * otherwise, with time starting at T0 and moved by hand.
 */
class LeakMathTest {
  private static final long T0 = 1_700_000_000_000_000L;
  private static final long MS = 1000;
  private static final double RATE = 50;
  private static final LeakMath MATH = new LeakMath(new LeakConfig(0.1, 30_000 * MS));

  /** The leak under test as a timeline: the state carried from step to step. */
  private static final class Timeline {
    final LeakMath math;
    LeakState state = LeakState.EMPTY;

    Timeline(LeakMath math) {
      this.math = math;
    }

    SlotClaim claim(long atMs, int wanted, long lookaheadMs) {
      return claim(atMs, RATE, wanted, lookaheadMs);
    }

    SlotClaim claim(long atMs, double rate, int wanted, long lookaheadMs) {
      LeakMath.ClaimStep step = math.claim(state, T0 + atMs * MS, rate, wanted, lookaheadMs * MS);
      state = step.next();
      return step.claim();
    }

    ThrottleDecision throttled(long atMs, long retryAfterMs, long startedAtMs) {
      LeakMath.ThrottleStep step = math.throttled(state, T0 + atMs * MS, RATE, retryAfterMs, T0 + startedAtMs * MS);
      state = step.next();
      return step.decision();
    }
  }

  private static long ms(long micros) {
    return (micros - T0) / MS;
  }

  @Test
  @DisplayName("spaces consecutive claims one interval apart, whoever claims")
  void shouldSpaceSlotsOneIntervalApart() {
    Timeline leak = new Timeline(MATH);
    assertEquals(0, ms(leak.claim(0, 1, 0).firstSlotMicros()), "an idle provider: now");
    SlotClaim second = leak.claim(0, 1, 100);
    assertEquals(20, ms(second.firstSlotMicros()), "the next one 1/50 s later");
    assertEquals(20_000, second.intervalMicros());
    assertEquals(40, ms(leak.claim(5, 1, 100).firstSlotMicros()), "a claim 5 ms later: 20 ms after that one");
    assertEquals(100, ms(leak.claim(100, 1, 100).firstSlotMicros()), "a claim after the schedule: now");
  }

  @Test
  @DisplayName("grants n consecutive slots, as many as fit in the lookahead")
  void shouldGrantAsManySlotsAsFitInTheLookahead() {
    Timeline leak = new Timeline(MATH);
    SlotClaim c = leak.claim(0, 10, 100);
    assertEquals(6, c.granted(), "0, 20, 40, 60, 80 and 100 ms: the lookahead's end is included");
    assertEquals(100, ms(c.slotMicros(5)));
    assertEquals(3, leak.claim(200, 3, 100).granted(), "no more than wanted");
  }

  @Test
  @DisplayName("grants nothing beyond the lookahead and says when a claim can succeed")
  void shouldTellWhenToRetryWhenTheLookaheadIsFull() {
    Timeline leak = new Timeline(MATH);
    leak.claim(0, 6, 100);
    SlotClaim full = leak.claim(10, 1, 100);
    assertEquals(0, full.granted());
    assertEquals(120, ms(full.firstSlotMicros()), "the next free slot");
    assertEquals(20, ms(full.retryAtMicros()), "when 120 ms is within the lookahead");
    assertEquals(1, leak.claim(20, 1, 100).granted(), "and then it is");
  }

  @Test
  @DisplayName("starts no slot before a Retry-After ends, from whichever claimer")
  void shouldHonourRetryAfter() {
    Timeline leak = new Timeline(MATH);
    leak.claim(0, 1, 100);
    ThrottleDecision d = leak.throttled(10, 2000, 0);
    assertEquals(2010, ms(d.pausedUntilMicros()));
    SlotClaim during = leak.claim(500, 1, 100);
    assertEquals(0, during.granted());
    assertEquals(1910, ms(during.retryAtMicros()), "a lookahead before the pause ends");
    SlotClaim after = leak.claim(1910, 3, 100);
    assertEquals(1, after.granted(), "only the slot at the lookahead's end");
    assertEquals(2010, ms(after.firstSlotMicros()), "the first slot when the pause ends");
  }

  @Test
  @DisplayName("keeps the longest pause when a shorter Retry-After follows")
  void shouldKeepTheLongerPause() {
    Timeline leak = new Timeline(MATH);
    leak.throttled(0, 5000, 0);
    assertEquals(5000, ms(leak.throttled(100, 1000, 50).pausedUntilMicros()));
  }

  @Test
  @DisplayName("a first 429 pauses for its Retry-After and leaves the rate alone, as do its companions")
  void shouldPauseWithoutCuttingOnAFirst429() {
    Timeline leak = new Timeline(MATH);
    ThrottleDecision first = leak.throttled(100, 1000, 80);
    assertFalse(first.cut(), "one refusal may be timing jitter at a strict provider");
    assertEquals(1100, ms(first.pausedUntilMicros()));
    assertEquals(1.0, first.rateFactor());
    for (long startedAt = 20; startedAt < 100; startedAt += 20) {
      ThrottleDecision companion = leak.throttled(110, 0, startedAt);
      assertFalse(companion.cut(), "claimed at " + startedAt + " ms, before the pause ended");
      assertEquals(1.0, companion.rateFactor());
    }
    SlotClaim after = leak.claim(1100, 3, 100);
    assertEquals(1100, ms(after.firstSlotMicros()), "the calls resume when the pause ends");
    assertEquals(20_000, after.intervalMicros(), "at the configured 50/s");
  }

  @Test
  @DisplayName("cuts the rate in half when a call claimed after the pause ended is refused again")
  void shouldCutOnARepeat() {
    Timeline leak = new Timeline(MATH);
    leak.throttled(100, 1000, 80);
    assertFalse(leak.throttled(1150, 1000, 1090).cut(), "claimed before the pause ended at 1100 ms");
    ThrottleDecision again = leak.throttled(2300, 1000, 2200);
    assertTrue(again.cut(), "claimed at 2200 ms, after the pause (longest: 2150 ms) ended");
    assertEquals(0.5, again.rateFactor());
    ThrottleDecision third = leak.throttled(3400, 0, 3350);
    assertTrue(third.cut(), "and again after that pause ended at 3300 ms");
    // 1.1 s into a 30 s recovery from 0.5 the factor is 0.5 + 1.1/30 * 0.5; halved:
    assertEquals((0.5 + 1100.0 / 30_000 * 0.5) / 2, third.rateFactor(), 1e-12);
  }

  @Test
  @DisplayName("a 429 more than a recovery after the last pause ended is a first one again")
  void shouldNotCutForARefusalLongAfterTheLastPause() {
    Timeline leak = new Timeline(MATH);
    leak.throttled(0, 1000, 0);
    assertFalse(leak.throttled(31_001, 1000, 31_000).cut(), "the pause ended 30 s ago");
  }

  @Test
  @DisplayName("never cuts below the floor")
  void shouldNeverCutBelowTheFloor() {
    Timeline leak = new Timeline(MATH);
    double factor = 1;
    for (int i = 0; i < 6; i++) {
      factor = leak.throttled(i, 0, i).rateFactor();
    }
    assertEquals(0.1, factor, "five repeats after a first 429: 1/32 would be below the floor 0.1");
    assertEquals(200_000, leak.claim(5, 1, 0).intervalMicros(), "50/s * 0.1 = 5/s");
  }

  @Test
  @DisplayName("recovers linearly from the cut to the configured rate over the recovery period")
  void shouldRecoverGradually() {
    Timeline leak = new Timeline(MATH);
    leak.throttled(0, 0, 0);
    assertTrue(leak.throttled(0, 0, 0).cut(), "a repeat");
    assertEquals(0.5, leak.claim(0, 1, 0).rateFactor(), 1e-12);
    assertEquals(0.625, leak.claim(7_500, 1, 0).rateFactor(), 1e-12, "a quarter of 30 s: a quarter of the way");
    SlotClaim half = leak.claim(15_000, 1, 0);
    assertEquals(0.75, half.rateFactor(), 1e-12);
    assertEquals(26_667, half.intervalMicros(), "37.5/s, rounded up to a whole microsecond");
    assertEquals(1.0, leak.claim(30_000, 1, 0).rateFactor(), "recovered");
    assertEquals(1.0, leak.claim(90_000, 1, 0).rateFactor(), "and no further");
  }

  @Test
  @DisplayName("spaces the first slot after a cut by the new interval, not the old one")
  void shouldSpaceTheFirstSlotAfterACutByTheNewInterval() {
    Timeline leak = new Timeline(MATH);
    SlotClaim before = leak.claim(0, 3, 100);
    assertEquals(40, ms(before.slotMicros(2)), "slots 0, 20, 40 ms at 50/s");
    leak.throttled(5, 0, 0);
    assertTrue(leak.throttled(5, 0, 5).cut(), "a repeat");
    SlotClaim after = leak.claim(5, 1, 100);
    assertEquals(80, ms(after.firstSlotMicros()), "40 ms after the last slot: 25/s");
  }

  @Test
  @DisplayName("never decides in the bucket's past when the clock steps back")
  void shouldNeverGoBackInTime() {
    Timeline leak = new Timeline(MATH);
    leak.claim(1000, 1, 0);
    SlotClaim behind = leak.claim(400, 1, 100);
    assertEquals(1000, ms(behind.nowMicros()), "decided as of the latest time seen");
    assertEquals(1020, ms(behind.firstSlotMicros()));
    ThrottleDecision d = leak.throttled(500, 100, 500);
    assertEquals(1000, ms(d.nowMicros()));
    assertEquals(1100, ms(d.pausedUntilMicros()), "Retry-After counts from the latest time seen");
    assertEquals(1000, ms(leak.state.clockMicros()));
  }

  @Test
  @DisplayName("rounds intervals up to whole microseconds, so spacing never drops below 1/rate")
  void shouldRoundIntervalsUp() {
    assertEquals(333_334, LeakMath.intervalMicros(3, 1));
    assertEquals(20_000, LeakMath.intervalMicros(50, 1), "exact when it divides");
    assertEquals(1, LeakMath.intervalMicros(5e6, 1), "above 1e6/s every microsecond");
    for (double rate : new double[] {0.3, 1, 7, 49.9, 333, 12_345.6}) {
      assertTrue(LeakMath.intervalMicros(rate, 1) >= 1e6 / rate, "rate " + rate);
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 42, 2024})
  @DisplayName("grants at most rate*T + 1 slots in any window T across random interleavings of claimers")
  void shouldKeepTheWindowInvariantAcrossClaimers(long seed) {
    runClaimers(seed, false);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {7, 8, 9})
  @DisplayName("keeps the window invariant when 429s cut and pause the leak in between")
  void shouldKeepTheWindowInvariantThroughCuts(long seed) {
    runClaimers(seed, true);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {11, 12, 13})
  @DisplayName("keeps the window invariant when Redis loses the state between claims")
  void shouldKeepTheWindowInvariantThroughWipes(long seed) {
    runWipedClaimers(seed, new LeakMath(new LeakConfig(0.2, 2_000_000), LeakMath.Memory.LOSABLE));
  }

  @Test
  @DisplayName("control: a leak that took a lost state for a new one would break the invariant")
  void shouldBreakTheWindowInvariantThroughWipesIfALostStateStartedAfresh() {
    LeakMath forgetful = new LeakMath(new LeakConfig(0.2, 2_000_000), LeakMath.Memory.KEPT);
    assertThrows(AssertionError.class, () -> runWipedClaimers(11, forgetful));
  }

  @Test
  @DisplayName("a missing key holds the first slot one interval after the furthest one it may have lost")
  void shouldHoldBackALostLastSlot() {
    LeakMath redis = new LeakMath(MATH.config(), LeakMath.Memory.LOSABLE);
    SlotClaim wiped = redis.claim(LeakState.EMPTY, T0, RATE, 3, 100 * MS).claim();
    assertEquals(0, wiped.granted(), "a lost slot may lie at 100 ms: the next at 120 ms is beyond");
    assertEquals(120, ms(wiped.firstSlotMicros()));
    assertEquals(20, ms(wiped.retryAtMicros()));
  }

  /**
   * Three claimers at 37/s sharing one lookahead of 120 ms, with Redis losing the whole state at
   * random moments (one claim in 40), as a restart without persistence would.
   */
  private static void runWipedClaimers(long seed, LeakMath math) {
    double rate = 37;
    long lookahead = 120_000;
    Random random = new Random(seed);
    LeakState state = LeakState.EMPTY;
    List<Long> slots = new ArrayList<>();
    long clock = T0;
    for (int call = 0; call < 3000; call++) {
      clock += random.nextInt(30_000);
      if (random.nextInt(40) == 0) {
        state = LeakState.EMPTY;
      }
      LeakMath.ClaimStep step = math.claim(state, clock, rate, 1 + random.nextInt(6), lookahead);
      SlotClaim c = step.claim();
      for (int i = 0; i < c.granted(); i++) {
        slots.add(c.slotMicros(i));
      }
      state = step.next();
    }
    assertTrue(slots.size() > 1000, "enough slots to mean something: " + slots.size());
    List<Long> sorted = new ArrayList<>(slots);
    Collections.sort(sorted);
    assertWindowInvariant(sorted, rate);
  }

  /**
   * Five claimers at 37/s (interval 27 028 us) with their own lookaheads (0 to 200 ms) and
   * wants (1 to 8), taking turns at random as Redis would serialise them, their clocks up to 5 ms
   * behind one another. Every slot granted must lie between its claim's now and the lookahead,
   * consecutive slots be at least 1/rate apart, and any window hold at most rate*T + 1.
   */
  private static void runClaimers(long seed, boolean with429s) {
    double rate = 37;
    Random random = new Random(seed);
    LeakMath math = new LeakMath(new LeakConfig(0.2, 2_000_000));
    long[] lookahead = {0, 10_000, 50_000, 120_000, 200_000};
    int[] maxWanted = {1, 2, 4, 8, 3};
    LeakState state = LeakState.EMPTY;
    List<Long> slots = new ArrayList<>();
    long clock = T0;
    for (int call = 0; call < 4000; call++) {
      clock += random.nextInt(30_000);
      long seen = clock - random.nextInt(5_000);
      int claimer = random.nextInt(lookahead.length);
      if (with429s && random.nextInt(50) == 0) {
        long startedAt = slots.isEmpty() ? seen : slots.get(slots.size() - 1 - random.nextInt(Math.min(5, slots.size())));
        state = math.throttled(state, seen, rate, random.nextInt(300), startedAt).next();
        continue;
      }
      LeakMath.ClaimStep step = math.claim(state, seen, rate, 1 + random.nextInt(maxWanted[claimer]), lookahead[claimer]);
      SlotClaim c = step.claim();
      for (int i = 0; i < c.granted(); i++) {
        long slot = c.slotMicros(i);
        assertTrue(slot >= c.nowMicros() && slot <= c.nowMicros() + lookahead[claimer], "within the lookahead");
        slots.add(slot);
      }
      state = step.next();
    }
    assertTrue(slots.size() > 1000, "enough slots to mean something: " + slots.size());
    List<Long> sorted = new ArrayList<>(slots);
    Collections.sort(sorted);
    assertEquals(sorted, slots, "slots are granted in time order");
    assertWindowInvariant(sorted, rate);
  }

  /** For every pair of slots i &lt;= k: k - i + 1 slots in a window of their distance. */
  static void assertWindowInvariant(List<Long> sortedSlots, double rate) {
    for (int i = 1; i < sortedSlots.size(); i++) {
      long gap = sortedSlots.get(i) - sortedSlots.get(i - 1);
      assertTrue(gap >= 1e6 / rate, "slots " + (i - 1) + " and " + i + " only " + gap + " us apart");
    }
    for (int i = 0; i < sortedSlots.size(); i++) {
      for (int k = i + 1; k < sortedSlots.size(); k++) {
        double window = (sortedSlots.get(k) - sortedSlots.get(i)) / 1e6;
        if (k - i + 1 > rate * window + 1 + 1e-9) {
          throw new AssertionError((k - i + 1) + " slots within " + window + " s at " + rate + "/s");
        }
      }
    }
  }
}
