package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class QuotaRulesMathTest {
  private static final long T0 = 1_700_000_000_000_000L;

  @Test
  void shouldChargeNothingInAnyRuleWhenOneRefuses() {
    List<QuotaRulesMath.Level> states = Arrays.asList(new QuotaRulesMath.Level(5, T0), new QuotaRulesMath.Level(0.5, T0));
    QuotaRulesMath.Step s = QuotaRulesMath.acquire(states, QuotaRulesSpecification.SPECS, 1, T0, 0);
    assertEquals(0, s.acquisition().granted());
    assertEquals(states, s.next());
  }

  @Test
  void shouldStartABucketLostWithItsSlotEmptyAtTheLoss() {
    QuotaRulesMath.Step s = QuotaRulesMath.acquire(Arrays.asList((QuotaRulesMath.Level) null),
        List.of(new BucketSpec(5, 10, 0)), 1, T0 + 200_000, T0);
    assertEquals(2, s.acquisition().levels().get(0), 1e-9);
  }

  /**
   * With leases, a lost bucket may have had all its capacity leased out to holders who spend it
   * until their leases end (within the hold of the loss): empty until then, refilling after.
   */
  @Test
  void shouldStartABucketLostWhileLeasedEmptyUntilItsLeasesCouldHaveEnded() {
    List<BucketSpec> spec = List.of(new BucketSpec(5, 10, 0));
    List<RuleBucket> none = List.of();
    QuotaRulesMath.Step during = QuotaRulesMath.acquire(Arrays.asList((QuotaRulesMath.Level) null), spec,
        new TokenBucketStore.RulesCall(none, 1, 1, 300_000, null), T0 + 200_000, T0, 1);
    assertEquals(0, during.acquisition().granted(), "the lost bucket's leases may still be spent");
    assertEquals(100_000 + 100_000, during.acquisition().waitMicros(), "until the hold ends, then one unit's refill");
    QuotaRulesMath.Step after = QuotaRulesMath.acquire(Arrays.asList((QuotaRulesMath.Level) null), spec,
        new TokenBucketStore.RulesCall(none, 1, 1, 300_000, null), T0 + 500_000, T0, 1);
    assertEquals(2, after.acquisition().levels().get(0), 1e-9);
  }

  /**
   * Invariant 1 for every rule on its own: random events charged against random subsets of three
   * rules, at random times; in every window between two admissions each rule admitted at most its
   * capacity plus its refill times the window.
   */
  @Test
  void shouldKeepEveryRuleWithinItsOwnBoundInEveryWindow() {
    List<BucketSpec> specs = List.of(new BucketSpec(5, 10, 0), new BucketSpec(3, 4, 0), new BucketSpec(8, 2, 0));
    Random random = new Random(12);
    List<QuotaRulesMath.Level> states = new ArrayList<>(Arrays.asList(null, null, null));
    List<List<long[]>> admitted = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    long now = T0;
    for (int n = 0; n < 4000; n++) {
      now += random.nextInt(40_000);
      List<Integer> rules = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        if (i == 0 || random.nextBoolean()) {
          rules.add(i);
        }
      }
      int cost = 1 + random.nextInt(3);
      List<QuotaRulesMath.Level> mine = new ArrayList<>();
      List<BucketSpec> mySpecs = new ArrayList<>();
      for (int i : rules) {
        mine.add(states.get(i));
        mySpecs.add(specs.get(i));
      }
      QuotaRulesMath.Step s = QuotaRulesMath.acquire(mine, mySpecs, cost, now, 0);
      for (int k = 0; k < rules.size(); k++) {
        states.set(rules.get(k), s.next().get(k));
        if (s.acquisition().isGranted()) {
          admitted.get(rules.get(k)).add(new long[] {now, cost});
        }
      }
    }
    for (int i = 0; i < 3; i++) {
      assertWithinBound(admitted.get(i), specs.get(i));
    }
  }

  static void assertWithinBound(List<long[]> admissions, BucketSpec spec) {
    assertWithinBound(admissions, spec, 10);
  }

  static void assertWithinBound(List<long[]> admissions, BucketSpec spec, int atLeast) {
    assertTrue(admissions.size() >= atLeast, "enough admissions to mean something: " + admissions.size());
    for (int a = 0; a < admissions.size(); a++) {
      double sum = 0;
      for (int b = a; b < admissions.size(); b++) {
        sum += admissions.get(b)[1];
        double window = (admissions.get(b)[0] - admissions.get(a)[0]) / 1e6;
        assertTrue(sum <= spec.capacity() + spec.refillPerSecond() * window + 1e-6,
            "admitted " + sum + " in " + window + " s from a bucket of " + spec);
      }
    }
  }
}
