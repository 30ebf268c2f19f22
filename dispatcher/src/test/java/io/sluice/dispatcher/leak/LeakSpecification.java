package io.sluice.dispatcher.leak;

import java.util.List;

/**
 * One table, the behaviour of a provider's leak step by step, run over every implementation of the
 * leak ({@link io.sluice.testkit.SpecTable}): the Java math and the in-process
 * {@link LocalLeakyBucket} ({@link LeakSpecTest}), the Lua script on a real Redis and on a cluster
 * ({@link LeakyBucketScriptIT}).
 *
 * <p>The leak: 1 call/s (one slot a second), a lookahead of 2.5 s, cuts no deeper than a quarter
 * of the rate, full recovery 100 s after a cut; its state can be lost ({@link LeakMath.Memory#LOSABLE},
 * as in Redis). Each step first moves time by
 * {@code advanceMillis}, then claims or reports a 429. A 429's call started
 * {@code startedAgoMillis} before the step's time (the time of the step before, plus the advance).
 *
 * <p>Expected times are exact for the math; against Redis the real time that passes between steps
 * (milliseconds, more on a busy machine) moves them by as much, so the rows keep every decision at
 * least 500 ms away from an edge, and the script is held exactly to the math fed with its own
 * clock instead.
 */
final class LeakSpecification {
  static final LeakConfig CONFIG = new LeakConfig(0.25, 100_000_000);
  static final double RATE = 1.0;
  static final long LOOKAHEAD_MICROS = 2_500_000;

  enum Kind { CLAIM, THROTTLED }

  /**
   * @param wanted           slots asked for (claims)
   * @param retryAfterMillis the provider's Retry-After (429s)
   * @param expectGranted    claims: slots granted; 429s: 1 if it cut the rate, else 0
   * @param expectAtMillis   claims: the first slot granted, or if none when to retry; 429s: the
   *                         end of the pause; all relative to the step's time
   * @param expectFactor     the effective rate over the configured one after the step
   * @param whenKept         where the leak's state is kept in process and cannot be lost
   *                         ({@link LeakMath.Memory#KEPT}: {@link LocalLeakyBucket}), what the step
   *                         answers instead; null: the same
   */
  record Step(String why, long advanceMillis, Kind kind, int wanted, long retryAfterMillis, long startedAgoMillis,
              int expectGranted, long expectAtMillis, double expectFactor, Kept whenKept) {

    /** This step's expectation where the state is kept: its own, or the difference the table states. */
    Step kept() {
      return whenKept == null ? this : new Step(why, advanceMillis, kind, wanted, retryAfterMillis, startedAgoMillis,
          whenKept.expectGranted(), whenKept.expectAtMillis(), expectFactor, null);
    }
  }

  /** An expected difference where the state cannot be lost, and why. */
  record Kept(String why, int expectGranted, long expectAtMillis) {}

  private static Step claim(String why, long advanceMillis, int wanted, int granted, long atMillis, double factor) {
    return new Step(why, advanceMillis, Kind.CLAIM, wanted, 0, 0, granted, atMillis, factor, null);
  }

  private static Step claim(String why, long advanceMillis, int wanted, int granted, long atMillis, double factor,
      Kept whenKept) {
    return new Step(why, advanceMillis, Kind.CLAIM, wanted, 0, 0, granted, atMillis, factor, whenKept);
  }

  private static Step throttled(String why, long advanceMillis, long retryAfterMillis, long startedAgoMillis, boolean cut,
      long pauseMillis, double factor) {
    return new Step(why, advanceMillis, Kind.THROTTLED, 0, retryAfterMillis, startedAgoMillis, cut ? 1 : 0, pauseMillis,
        factor, null);
  }

  static final List<Step> STEPS = List.of(
      claim("a missing key (new, or lost by Redis) may have granted a slot up to the lookahead ahead: "
          + "none before one interval after that, retry in 1 s", 0, 1, 0, 1000, 1,
          new Kept("a leak kept in process lost nothing: a new one grants a slot now", 1, 0)),
      claim("four seconds on that slot is behind: a slot now", 4000, 1, 1, 0, 1),
      claim("of five wanted, two fit in the lookahead: at 1 s and 2 s", 0, 5, 2, 1000, 1),
      claim("the next slot, at 3 s, is beyond the lookahead: retry at 0.5 s", 0, 1, 0, 500, 1),
      claim("three seconds later three slots fit: now, +1 s, +2 s", 3000, 3, 3, 0, 1),
      claim("ten idle seconds save no burst: still one slot a second", 10_000, 5, 3, 0, 1),
      throttled("a 429 with Retry-After 20 s pauses the leak; a first 429 does not cut the rate", 0, 20_000, 0,
          false, 20_000, 1),
      throttled("a 429 from a call claimed before that pause ends neither cuts nor shortens it", 0, 10_000, 1000,
          false, 20_000, 1),
      claim("no slot inside the pause: retry 2.5 s before it ends", 0, 1, 0, 17_500, 1),
      claim("18 s on, the first slot when the pause ends, at the configured rate", 18_000, 3, 1, 2000, 1),
      throttled("ten seconds on, a 429 to a call claimed 1 s after the pause ended: a repeat, it halves the rate",
          10_000, 0, 7000, true, 0, 0.5),
      throttled("its companions, claimed before this new pause ended, do not", 0, 0, 8000, false, 0, 0.5),
      throttled("a call claimed after it cuts again, to the floor 0.25", 0, 0, 0, true, 0, 0.25),
      throttled("and again: the floor holds (not 0.125)", 0, 0, 0, true, 0, 0.25),
      claim("at a quarter rate a slot now", 0, 1, 1, 0, 0.25),
      claim("and the next 4 s later, beyond the lookahead", 0, 1, 0, 1500, 0.25),
      claim("half way through the recovery: 0.625, slots 1.6 s apart", 50_000, 3, 2, 0, 0.625),
      claim("a full recovery later the configured rate again", 100_000, 3, 3, 0, 1),
      throttled("a 429 long after the last pause ended is a first one again: no cut", 0, 0, 0, false, 0, 1),
      claim("the clock stepping back 5 s decides as of the latest time seen", -5000, 1, 0, 500, 1));

  private LeakSpecification() {}
}
