package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;

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
  /** The history CI found (issue 34): lost, then cut within a reach, then raised back. */
  static final long A_CUT_WITHIN_A_REACH_AFTER_A_LOSS = -21444246679092L;
  /** Its sibling, once left out of the generator: cut, then lost within a reach, then raised. */
  static final long A_LOSS_WITHIN_A_REACH_AFTER_A_CUT = -4011995L;

  /**
   * Also says, and requires, that the histories hold losses and cuts within a reach of each other,
   * in both orders (about one in eight of the 3,000 each; the bound across them is issue 34's).
   */
  @Property(tries = 3000, seed = SEED)
  void noWindowAdmitsMoreThanCapacityPlusRefillTimesItsLength(@ForAll long seed) throws Exception {
    QuotaHistory history = QuotaHistory.of(seed);
    Statistics.label("a cut within a reach after a loss").collect(history.cutsWithinAReachAfterALoss());
    Statistics.label("a loss within a reach after a cut").collect(history.losesWithinAReachAfterACut());
    Statistics.label("a cut within a reach after a loss").coverage(c -> c.check(true).count(n -> n >= 150));
    Statistics.label("a loss within a reach after a cut").coverage(c -> c.check(true).count(n -> n >= 150));
    holdsTheBound(seed);
  }

  private static void holdsTheBound(long seed) throws Exception {
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
   * Found by CI on 2026-11-29 with a random seed (issue 34): a slot lost at 13.45 s, the rate cut
   * from 8.68/s to 3.53/s before any call found the loss, so the bucket was rebuilt at 13.64 s
   * holding a reach of reservations at 3.53/s; cut to 3.37/s, then raised back to 8.68/s, which
   * read that debt as sold at 3.53/s: an old line at 3.53/s until the loss plus a reach and 5.15/s
   * sold beside it, while the lost bucket's reservations ran at 8.68/s until then: 46 units due
   * in 4.12 s where the changing-rate bound allows 45.75. (Red before "lost_end".)
   */
  @Example
  void aCutWithinAReachAfterALoss() throws Exception {
    holdsTheBound(A_CUT_WITHIN_A_REACH_AFTER_A_LOSS);
  }

  /**
   * The sibling, left out of the generator until issue 34: a cut from 10.38/s to 0.56/s, the slot
   * lost 0.42 s later and rebuilt at 0.56/s, a raise to 10.94/s selling beside an old line at
   * 0.56/s: 16 units in 1.17 s where 15.3 were allowed. (Red before "lost_end".)
   */
  @Example
  void aLossWithinAReachAfterACut() throws Exception {
    holdsTheBound(A_LOSS_WITHIN_A_REACH_AFTER_A_CUT);
  }
}
