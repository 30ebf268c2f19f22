package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Leases across rules ({@link MultiRuleLimiter}, {@link RulesLease}): a busy rule set is decided
 * in process, and a tier budget several instances lease from admits no more than its bucket allows.
 */
class MultiRuleLeaseTest {
  private static final long T0_NANOS = 1_700_000_000_000_000_000L;
  private final long[] nanos = {T0_NANOS};
  private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(() -> nanos[0] / 1000);

  private MultiRuleLimiter instance(int maxLease) {
    return new MultiRuleLimiter(store, new RedisCircuit(1000, 1000, s -> {}), Duration.ofSeconds(5),
        () -> nanos[0], (p, n) -> {}, Duration.ofMillis(100), maxLease);
  }

  private static List<RuleBucket> rules(String tenant, BucketSpec own, BucketSpec tier) {
    return List.of(new RuleBucket("provider", RuleKeys.provider(tenant, "a-api"), own),
        new RuleBucket("tier", RuleKeys.tierBudget("pro", "a-api"), tier));
  }

  @Test
  void shouldDecideABusyRuleSetFromALeaseWithoutACallPerEvent() {
    MultiRuleLimiter gate = instance(1_000);
    List<RuleBucket> acme = rules("acme", new BucketSpec(1_000, 1_000, 0), new BucketSpec(10_000, 10_000, 0));
    int admitted = 0;
    for (int i = 0; i < 2_000; i++) {
      nanos[0] += 1_000_000; // 1,000 events/s, within both rules
      if (gate.decide("a-api", acme, 1, false) instanceof LimiterDecision.Admit) {
        admitted++;
      }
    }
    assertEquals(2_000, admitted, "within both rules: every event admitted");
    assertTrue(store.calls() < 200, "a script call per lease, not per event: " + store.calls() + " for 2,000");
  }

  @Test
  void shouldDecideEveryEventByTheScriptWithoutLeases() {
    MultiRuleLimiter gate = instance(0);
    List<RuleBucket> acme = rules("acme", new BucketSpec(1_000, 1_000, 0), new BucketSpec(10_000, 10_000, 0));
    for (int i = 0; i < 100; i++) {
      nanos[0] += 1_000_000;
      gate.decide("a-api", acme, 1, false);
    }
    assertEquals(100, store.calls());
  }

  /**
   * A tier budget of 20 at 200/s: one instance leases 10 of its units for tenant A and leaves them
   * unused for 150 ms while the tier refills, another instance's tenant B then takes all the tier
   * has, and A spends its lease at that same instant: 20 together, never 20 plus the lease.
   */
  @Test
  void shouldNotAdmitBeyondASharedTierBudgetWhileAnotherInstanceHoldsALease() {
    BucketSpec own = new BucketSpec(1_000, 1_000, 0);
    BucketSpec tier = new BucketSpec(20, 200, 0);
    List<RuleBucket> a = rules("tenant-a", own, tier);
    List<RuleBucket> b = rules("tenant-b", own, tier);
    long sent = nanos[0];
    RulesAcquisition grant = store.acquireAllBatch(
            List.of(new TokenBucketStore.RulesCall(a, 1, 11, 300_000, null)))
        .toCompletableFuture().join().get(0);
    assertEquals(10, grant.leaseUnits());
    RulesLease lease = new RulesLease(grant, 200_000, sent, nanos[0]);

    nanos[0] += 150_000_000;
    MultiRuleLimiter other = instance(0);
    int admitted = 0;
    while (other.decide("a-api", b, 1, false) instanceof LimiterDecision.Admit) {
      admitted++;
    }
    while (lease.take(1, nanos[0]) >= 0) {
      admitted++;
    }
    assertEquals(20, admitted, "the tier's capacity at one instant, leased units included");
  }

  /**
   * A quota cut while a rule set holds a lease: its next events are decided by the script under
   * the new terms, as a single-rule lease is dropped on a change. Before issue 34 (7) the lease
   * went on selling at the old terms until spent: all 200 events in the 200 ms after a cut to
   * 5 at 5/s, with no call.
   */
  @Test
  void shouldStopSellingFromALeaseAcrossRulesOnceAQuotaIsCut() {
    // A lease covers a second of demand (gate.leaseTarget: 1 s).
    MultiRuleLimiter gate = new MultiRuleLimiter(store, new RedisCircuit(1000, 1000, s -> {}),
        Duration.ofSeconds(5), () -> nanos[0], (p, n) -> {}, Duration.ofSeconds(1), 1_000);
    BucketSpec tier = new BucketSpec(100_000, 100_000, 0);
    for (int i = 0; i < 100; i++) {
      nanos[0] += 2_000_000; // 500/s against 1,000 at 1,000/s: busy enough for a lease
      gate.decide("a-api", rules("acme", new BucketSpec(1_000, 1_000, 0), tier), 1, false);
    }
    List<RuleBucket> cut = rules("acme", new BucketSpec(5, 5, 0), tier);
    int admitted = 0;
    for (int i = 0; i < 200; i++) {
      nanos[0] += 1_000_000;
      if (gate.decide("a-api", cut, 1, false) instanceof LimiterDecision.Admit) {
        admitted++;
      }
    }
    assertTrue(admitted <= 5 + 5 * 0.2, admitted + " admitted in the 200 ms after a cut to 5 at 5/s");
  }

  /** Every window [t, t + T] starting at an admission, T from 1 ms to 5 s. */
  private static void assertWithin(List<Long> admittedMicros, BucketSpec spec) {
    for (long windowMicros : new long[] {1_000, 100_000, 500_000, 1_000_000, 2_000_000, 5_000_000}) {
      int j = 0;
      for (int i = 0; i < admittedMicros.size(); i++) {
        while (j < admittedMicros.size() && admittedMicros.get(j) <= admittedMicros.get(i) + windowMicros) {
          j++;
        }
        double bound = spec.capacity() + spec.refillPerSecond() * windowMicros / 1e6;
        assertTrue(j - i <= bound + 1e-9,
            (j - i) + " admitted within " + windowMicros + " µs, bound " + bound + " (" + spec + ")");
      }
    }
  }
}
