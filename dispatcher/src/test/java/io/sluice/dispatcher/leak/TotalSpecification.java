package io.sluice.dispatcher.leak;

import java.util.List;
import java.util.Map;

/**
 * One table, two endpoints of one provider claiming jointly with the provider's total line
 * ({@link ProviderTotal}), run over every implementation ({@link io.sluice.testkit.SpecTable}):
 * {@link LeakMath} and {@link LimitMath} as Redis keeps them and {@link LocalLeakyBucket}
 * ({@link TotalSpecTest}), the Lua script on a real Redis and on a cluster
 * ({@link TotalScriptRuns}).
 *
 * <p>Endpoint {@code a} at 2/s (slots 0.5 s apart), endpoint {@code b} at 0.5/s (2 s apart), the
 * total at 1/s (1 s apart), a lookahead of 2.5 s; state losable as in Redis. Each step first moves
 * time by {@code advanceMillis}, then one endpoint claims. As in {@link LeakSpecification}, every
 * decision is at least 500 ms from an edge, so real time passing between steps on Redis moves the
 * answers' times by as much and changes no decision.
 */
final class TotalSpecification {
  static final LeakConfig CONFIG = LeakSpecification.CONFIG;
  static final double TOTAL_RATE = 1.0;
  static final Map<String, Double> RATES = Map.of("a", 2.0, "b", 0.5);
  static final long LOOKAHEAD_MICROS = 2_500_000;

  /**
   * @param lane           the endpoint that claims: {@code a} or {@code b}
   * @param expectAtMillis the first slot granted, or if none when to retry, after the step's now
   * @param expectInterval the spacing of the claim's slots: the larger of the endpoint's interval
   *                       and the total's
   * @param whenKept       where the state is kept in process and cannot be lost, what the step
   *                       answers instead; null: the same
   */
  record Step(String why, long advanceMillis, String lane, int wanted, int expectGranted,
      long expectAtMillis, long expectInterval, LeakSpecification.Kept whenKept) {

    Step kept() {
      return whenKept == null ? this : new Step(why, advanceMillis, lane, wanted,
          whenKept.expectGranted(), whenKept.expectAtMillis(), expectInterval, null);
    }

    double rate() {
      return RATES.get(lane);
    }
  }

  private static Step claim(String why, long advanceMillis, String lane, int wanted, int granted,
      long atMillis, long intervalMillis) {
    return new Step(why, advanceMillis, lane, wanted, granted, atMillis, intervalMillis, null);
  }

  static final List<Step> STEPS = List.of(
      new Step("a's key and the total's are missing (new, or lost): each may have granted a slot up "
          + "to the lookahead ahead; the later, the total's, binds: retry in 1 s", 0, "a", 1, 0,
          1000, 1000, new LeakSpecification.Kept("kept in process: nothing lost, a slot now", 1, 0)),
      new Step("b's key is missing too: its own leak binds (2 s after the lookahead), retry in 2 s",
          0, "b", 1, 0, 2000, 2000, new LeakSpecification.Kept(
              "kept in process: b's leak is free, the total one interval after a's slot", 1, 1000)),
      claim("four seconds on both lines are behind: a slot now", 4000, "a", 1, 1, 0, 1000),
      claim("b's own leak is free now, but the total holds it one total interval after a's slot; "
          + "its slots 2 s apart (its own interval, the larger): one fits the lookahead", 0, "b", 3,
          1, 1000, 2000),
      claim("a's own next slot is at 0.5 s, but the total's next is 1 s after b's: at 2 s; the next "
          + "one (3 s) is beyond the lookahead", 0, "a", 3, 1, 2000, 1000),
      claim("b's next slot is 2 s after its last and 1 s after the total's last: at 3 s, beyond the "
          + "lookahead: retry at 0.5 s", 0, "b", 1, 0, 500, 2000),
      claim("three seconds on, both of b's lines free at once: a slot now", 3000, "b", 1, 1, 0,
          2000),
      claim("a's slots follow b's by the total's interval, 1 s apart (the larger): two fit", 0, "a",
          3, 2, 1000, 1000),
      claim("ten idle seconds bank nothing on either line: three slots, the total's interval apart",
          10_000, "a", 5, 3, 0, 1000),
      claim("the clock stepping back 5 s decides as of the latest time either line has seen: b is "
          + "one total interval after a's last, beyond the lookahead", -5000, "b", 1, 0, 500,
          2000));

  private TotalSpecification() {}
}
