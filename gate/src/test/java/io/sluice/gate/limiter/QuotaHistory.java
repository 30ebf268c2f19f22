package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One generated history of a tenant's bucket, drawn from a seed (so the same history runs on the
 * Java mirror and on the Lua, and a failure names its seed): the bucket's shape, how many gate
 * instances share it, and what happens in turn: an event at one instance (its cost and the extra
 * units it leases for later events), or Redis losing the bucket's slot. Queued events come back
 * late by the history's lateness. For a tenant with a per-attribute rule ({@link RulesBound}),
 * {@code spec} is its overall rule's and {@code attributeSpec} the attribute rule's, which the
 * events marked {@code attribute} match. A change sets the (overall) rule's rate to one of {@code
 * rates} (the first is the starting rate): a quota raised or cut by a reload or the registry.
 */
record QuotaHistory(long seed, BucketSpec spec, BucketSpec attributeSpec, List<Double> rates, int instances,
    List<Step> steps, List<Long> lateness) {
  /** How long a lease is held against the bucket's cap; named on every call, as the gate does. */
  static final long HOLD_MICROS = 1_000_000;
  /** How long a lease's units may be handed out: less than the hold, as {@link Lease} requires. */
  static final long USE_MICROS = 500_000;

  /** What happens {@code gapMicros} after the step before. */
  sealed interface Step {
    long gapMicros();
  }

  /**
   * An event of {@code cost} at gate instance {@code instance}, leasing {@code extra} more; with a
   * per-attribute rule, matching it or not.
   */
  record Event(long gapMicros, int instance, int cost, int extra, boolean attribute) implements Step {}

  /** Redis loses the bucket's slot, its marker with it. */
  record Wipe(long gapMicros) implements Step {}

  /** The quota's rate becomes {@code rates().get(rate)}. */
  record Change(long gapMicros, int rate) implements Step {}

  /** The rule's shape at rate {@code rates().get(rate)}. */
  BucketSpec specAt(int rate) {
    return new BucketSpec(spec.capacity(), rates.get(rate), spec.horizonMicros());
  }

  /** Whether a cut comes within a reach after a loss (issue 34, found by CI). */
  boolean cutsWithinAReachAfterALoss() {
    return within(Wipe.class, Change.class);
  }

  /** Whether a loss comes within a reach after a cut (the sibling case, also issue 34). */
  boolean losesWithinAReachAfterACut() {
    return within(Change.class, Wipe.class);
  }

  /** Whether a {@code second} step (a cut, if a change) comes within a reach after a {@code first}. */
  private boolean within(Class<? extends Step> first, Class<? extends Step> second) {
    long reach = TokenBucketMath.reachMicros(spec);
    long now = 0;
    long firstAt = Long.MIN_VALUE / 2;
    int rate = 0;
    for (Step step : steps) {
      now += step.gapMicros();
      boolean counts = !(step instanceof Change c) || rates.get(c.rate()) < rates.get(rate);
      if (step instanceof Change c) {
        rate = c.rate();
      }
      if (counts && second.isInstance(step) && now - firstAt < reach) {
        return true;
      }
      if (counts && first.isInstance(step)) {
        firstAt = now;
      }
    }
    return false;
  }

  static QuotaHistory of(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int capacity = random.nextInt(1, 11);
    double rate = Math.round(random.nextDouble(0.5, 20) * 100) / 100.0;
    long horizon = random.nextBoolean() ? 0 : random.nextLong(0, 3_000_000);
    BucketSpec spec = new BucketSpec(capacity, rate, horizon);
    // Every rule holds at least the dearest event (the configuration refuses a rule smaller
    // than the provider's maxCost: such an event could never be paid).
    int maxCost = Math.min(3, capacity);
    BucketSpec attributeSpec = new BucketSpec(random.nextInt(maxCost, capacity + 1),
        Math.round(random.nextDouble(0.5, rate + 0.5) * 100) / 100.0, 0);
    List<Double> rates = new ArrayList<>(List.of(rate));
    for (int i = 0; i < 3; i++) {
      rates.add(Math.round(random.nextDouble(0.5, 20) * 100) / 100.0);
    }
    // Half the histories keep their rate: their bound is capacity + refill * T exactly.
    boolean changing = random.nextBoolean();
    int instances = random.nextInt(2, 4);
    List<Step> steps = new ArrayList<>();
    int n = random.nextInt(1, 150);
    long now = 0;
    int rateNow = 0;
    for (int i = 0; i < n; i++) {
      long gap = random.nextInt(4) == 0 ? 0 : random.nextLong(0, 300_000);
      now += gap;
      // A loss and a cut within a reach of each other, in either order, are generated too (issue
      // 34): a loss within a reach after a cut was left out until the rebuilt bucket stopped
      // reading its debt as sold at the rate stored with it ("lost_end" in token_bucket.lua).
      if (random.nextInt(40) == 0) {
        steps.add(new Wipe(gap));
      } else if (changing && random.nextInt(25) == 0) {
        int next = random.nextInt(rates.size());
        rateNow = next;
        steps.add(new Change(gap, next));
      } else {
        steps.add(new Event(gap, random.nextInt(instances), random.nextInt(1, maxCost + 1),
            random.nextBoolean() ? 0 : random.nextInt(1, 5), random.nextBoolean()));
      }
    }
    List<Long> lateness = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      lateness.add(random.nextInt(3) == 0 ? 0 : random.nextLong(0, 1_500_000));
    }
    return new QuotaHistory(seed, spec, attributeSpec, List.copyOf(rates), instances, List.copyOf(steps),
        List.copyOf(lateness));
  }
}
