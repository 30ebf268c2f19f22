package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
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

  @Property(tries = 3000)
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
  @Property(tries = 3000)
  void noWindowOfAnyRuleAdmitsMoreThanItsCapacityPlusRefillTimesItsLength(@ForAll long seed) throws Exception {
    QuotaHistory history = QuotaHistory.of(seed);
    List<long[]> changes = new ArrayList<>();
    Optional<String> excess = RulesBound.firstExcess(
        RulesBound.play(history, new RulesBucket.Mirror(), "t", START, changes), history, changes);
    assertEquals(Optional.empty(), excess, () -> "seed " + seed + ", " + history);
  }
}
