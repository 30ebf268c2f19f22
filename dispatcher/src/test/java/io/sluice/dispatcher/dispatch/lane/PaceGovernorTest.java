package io.sluice.dispatcher.dispatch.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.SpecTable;
import io.sluice.testkit.SpecTable.Implementation;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link PaceGovernor} as a timeline: each row runs for {@code millis} with a slot fired every
 * {@code everyMillis} ({@code 0}: none), one in {@code lateOneIn} of them {@code lateMillis}
 * after its instant (the others on time), and answers as its last columns say, then reads the
 * factor and whether a call in flight for the last 2 s (a timeout's length) saw the dispatcher
 * late.
 */
class PaceGovernorTest {
  private static final long MS = 1_000_000;
  private static final long TIMEOUT_MILLIS = 2_000;

  /**
   * @param answerEveryMillis an answer every so often ({@code 0}: none), {@code excessMillis}
   *                          slower than its lane's usual, of a call started
   *                          {@code startedAgoMillis} before
   */
  record Step(String why, long millis, long everyMillis, long lateMillis, int lateOneIn,
      long answerEveryMillis, long excessMillis, long startedAgoMillis, double expectFactor,
      boolean expectOwnTimeouts, int lanes) {
    /** Answers spread over eight lanes. */
    Step(String why, long millis, long everyMillis, long lateMillis, int lateOneIn,
        long answerEveryMillis, long excessMillis, long startedAgoMillis, double expectFactor,
        boolean expectOwnTimeouts) {
      this(why, millis, everyMillis, lateMillis, lateOneIn, answerEveryMillis, excessMillis,
          startedAgoMillis, expectFactor, expectOwnTimeouts, 8);
    }
  }

  private static Step onTime(String why, long millis, double factor, boolean ownTimeouts) {
    return new Step(why, millis, 10, 0, 1, 0, 0, 0, factor, ownTimeouts);
  }

  private static Step late(String why, long millis, long lateMillis, double factor) {
    return new Step(why, millis, 10, lateMillis, 1, 0, 0, 0, factor, true);
  }

  private static Step answers(String why, long millis, long excessMillis, long startedAgoMillis,
      double factor, boolean ownTimeouts) {
    return new Step(why, millis, 0, 0, 1, 10, excessMillis, startedAgoMillis, factor, ownTimeouts);
  }

  static final List<Step> STEPS = List.of(
      onTime("slots on time, 100 a second: full pace", 2_000, 1, false),
      late("a stall: the slots due in it run late together, in one half-second: no cut", 500, 100,
          1),
      onTime("on time again: still full pace; a call in flight over the stall may have timed out "
          + "for it", 500, 1, true),
      late("late for a second (two half-seconds, most slots 50 ms late): cut to 0.75", 1_000, 50,
          0.75),
      late("still late: another cut a second later", 1_000, 50, 0.5625),
      late("late for ten seconds more: cut each second, never below the floor", 10_000, 50,
          PaceGovernor.FLOOR),
      onTime("on time for 2 s after a cut: held, the answers at the new pace may not be in yet",
          2_000, PaceGovernor.FLOOR, false),
      onTime("on time: 0.025 back each half-second, a quarter of that from 0.9 of the level the "
          + "lateness began at (1): full pace 26 s after the floor", 24_000, 1, false),
      new Step("slots 49 ms late: late is 50 ms or more, no cut", 2_000, 10, 49, 1, 0, 0, 0, 1,
          false),
      new Step("one slot in three 100 ms late: most on time, no cut", 2_000, 10, 100, 3, 0, 0, 0,
          1, false),
      new Step("one slot every 100 ms, all late: five a half-second say nothing, no cut", 2_000,
          100, 100, 1, 0, 0, 0, 1, false),
      late("late for a second: cut", 1_000, 50, 0.75),
      new Step("idle for a minute: full pace when work comes back", 60_000, 0, 0, 1, 0, 0, 0, 1,
          false),
      answers("answers of eight lanes 300 ms slower than their usual for a second (held up in "
          + "this process): cut; a timeout meanwhile is still the provider's (the timer was on "
          + "time)", 1_000, 300, 300, 0.75, false),
      answers("slow answers of calls started before the cut say nothing of the new pace: held",
          1_000, 300, 1_500, 0.75, false),
      answers("slow answers of calls started at the new pace: cut again", 1_000, 300, 100,
          0.5625, false),
      answers("answers 200 ms slower than usual are not slow: held 2 s, then 0.025 back each "
          + "half-second", 4_000, 200, 100, 0.6625, false),
      answers("a provider always 10 s slow: its answers are as slow as its usual, nothing cut",
          1_000, 0, 10_000, 0.7125, false),
      new Step("one lane, a provider carrying every answer, turns 300 ms slow: one provider is "
          + "not overload, nothing cut", 1_000, 0, 0, 1, 10, 300, 100, 0.7625, false, 1),
      new Step("three lanes slow: answers of fewer than four lanes say nothing, nothing cut",
          1_000, 0, 0, 1, 10, 300, 100, 0.8125, false, 3),
      onTime("back near the level the lateness began at (full pace): 0.025 a half-second up to "
          + "0.9 of it, 0.00625 from there", 5_000, 0.95, false),
      onTime("on time: full pace 8 s later", 8_000, 1, false));

  @TestFactory
  Stream<DynamicContainer> paceGovernorSpecification() {
    return SpecTable.of(STEPS, Step::why).over(new Implementation<>("PaceGovernor", Run::new));
  }

  @Test
  void shouldTellASingleStallThatCutsNoPaceNorMakesAWindowLate() {
    // 100 slots a second, on time but one, which fires 100 ms late at 1.2 s: a stall that bunches
    // the calls due in it (issue 39), too short to cut the pace or make half a window late.
    PaceGovernor governor = new PaceGovernor(0);
    for (long t = 0; t < 2_000; t += 10) {
      governor.fired(t * MS, t == 1_200 ? 100 * MS : 0);
    }
    assertEquals(1, governor.factor(2_000 * MS), 1e-9, "a single stall cuts no pace");
    assertFalse(governor.lateSince(1_000 * MS, 2_000 * MS), "no window had half its slots late");
    assertTrue(governor.stalledSince(200 * MS), "a second before a call handed over at 1.2 s");
    assertTrue(governor.stalledSince(1_200 * MS), "the late slot fired at 1.2 s");
    assertFalse(governor.stalledSince(1_201 * MS), "on time since");
  }

  @Test
  void shouldTellNoStallWhileSlotsFireLessThan50MsLate() {
    PaceGovernor governor = new PaceGovernor(0);
    assertFalse(governor.stalledSince(0), "no slot yet");
    for (long t = 0; t < 2_000; t += 10) {
      governor.fired(t * MS, 49 * MS);
    }
    assertFalse(governor.stalledSince(0), "a busy machine's timer runs a few ms late; 50 ms is a stall");
  }

  /** The governor on a clock that starts at 0 and moves with each row. */
  private static final class Run implements SpecTable.Run<Step> {
    private static final Object[] LANES = {"a", "b", "c", "d", "e", "f", "g", "h"};
    private final PaceGovernor governor = new PaceGovernor(0);
    private long now;

    @Override
    public void step(int index, Step row) {
      long end = now + row.millis() * MS;
      long fired = 0;
      if (row.everyMillis() > 0) {
        for (long t = now; t < end; t += row.everyMillis() * MS) {
          boolean late = fired++ % row.lateOneIn() == 0;
          governor.fired(t, late ? row.lateMillis() * MS : 0);
        }
      }
      if (row.answerEveryMillis() > 0) {
        int n = 0;
        for (long t = now; t < end; t += row.answerEveryMillis() * MS) {
          governor.answered(LANES[n++ % row.lanes()], t, t - row.startedAgoMillis() * MS,
              row.excessMillis() * MS);
        }
      }
      now = end;
      assertEquals(row.expectFactor(), governor.factor(now), 1e-9, "the factor");
      assertEquals(row.expectOwnTimeouts(),
          governor.lateSince(now - TIMEOUT_MILLIS * MS, now),
          "whether a call in flight for the last 2 s saw the dispatcher late");
    }
  }
}
