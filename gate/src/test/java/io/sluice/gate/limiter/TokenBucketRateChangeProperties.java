package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.PriorityQueue;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * A quota's rate changed while a tenant sends (the registry's {@code tenants set}): what was sold
 * keeps its due times and counts against the new rate, so no window sells more than the rates
 * that could have sold into it allow. A unit due at {@code t} was sold at most the holders' reach
 * before ({@link TokenBucketMath#reachMicros}), so the rate a window is allowed at {@code t} is
 * the highest in force in {@code [t - reach, t]}: after a raise, the new rate alone (the old
 * reservations and the new rate's sales together, never both in full); after a cut, the old rate
 * until what it sold has gone out. In any window of the due times, at most {@code capacity + } that
 * rate's integral over the window. Checked on {@link TokenBucketMath} (the script is held to it row
 * by row, {@code TokenBucketSpecification}); without the rule for a change (a raise repaid its
 * debt at the new rate, then sold it beside the old reservations) it fails.
 */
class TokenBucketRateChangeProperties {

  /** One arrival: {@code gapMicros} after the one before, asking {@code cost}; the rate changes to rates[change] first (-1: not). */
  record Arrival(int gapMicros, int cost, int change) {}

  @Provide
  Arbitrary<List<Double>> rates() {
    return Arbitraries.doubles().between(0.5, 20).ofScale(2).list().ofSize(4);
  }

  @Provide
  Arbitrary<List<Arrival>> arrivals() {
    return Combinators.combine(Arbitraries.integers().between(0, 150_000), Arbitraries.integers().between(1, 4),
            Arbitraries.integers().between(-40, 3).map(i -> Math.max(-1, i)))
        .as(Arrival::new).list().ofMinSize(1).ofMaxSize(150);
  }

  @Property(tries = 1000, seed = "20261129")
  void noWindowSellsMoreThanTheRatesThatCouldSellIntoIt(
      @ForAll @IntRange(min = 1, max = 4) int capacity,
      @ForAll @IntRange(min = 0, max = 5_000_000) int horizonMicros,
      @ForAll("rates") List<Double> rates,
      @ForAll("arrivals") List<Arrival> arrivals,
      @ForAll @Size(min = 50, max = 50) List<@IntRange(min = 0, max = 1_500_000) Integer> lateness) {
    BucketSpec spec = new BucketSpec(capacity, rates.get(0), horizonMicros);
    long reach = TokenBucketMath.reachMicros(spec);
    List<long[]> changes = new ArrayList<>(); // {at, index of the rate}
    changes.add(new long[] {Long.MIN_VALUE / 4, 0});
    BucketState state = null;
    List<Long> due = new ArrayList<>();
    PriorityQueue<long[]> holders = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    long now = 0;
    int n = 0;
    for (Arrival arrival : arrivals) {
      now += arrival.gapMicros();
      while (!holders.isEmpty() && holders.peek()[0] <= now) {
        long[] holder = holders.poll();
        state = decide(state, spec, AcquireRequest.holding((int) holder[1]), holder[0], due,
            holders, (int) holder[1], lateness.get(n++ % lateness.size()));
      }
      if (arrival.change() >= 0) {
        spec = new BucketSpec(capacity, rates.get(arrival.change()), horizonMicros);
        // The bucket hears of a change at its next decision and takes it as of its last one (it
        // cannot know when in between the quota changed): the refill since is at the new rate, as
        // a single-rate bucket's has always been.
        changes.add(new long[] {state == null ? now : state.updatedMicros(), arrival.change()});
      }
      if (arrival.cost() <= capacity) {
        state = decide(state, spec, AcquireRequest.single(arrival.cost()), now, due, holders, arrival.cost(),
            lateness.get(n++ % lateness.size()));
      }
    }
    ChangingRateBound.firstExcess(due, capacity, rates, changes, reach, 1)
        .ifPresent(excess -> fail(excess));
  }

  /**
   * The case the rule is for: a tenant sending 20/s against 3/s (a full horizon of 5 s sold), its
   * quota raised to 8/s. Before the rule the new rate sold only once the debt was repaid at it
   * (1.9 s), then beside the old reservations: 11/s for 3 s.
   */
  @net.jqwik.api.Example
  void aRaiseUnderLoadWithAFullHorizonSoldSellsNoMoreThanTheNewRate() {
    List<Arrival> arrivals = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      arrivals.add(new Arrival(50_000, 1, i == 200 ? 1 : -1));
    }
    noWindowSellsMoreThanTheRatesThatCouldSellIntoIt(1, 5_000_000, List.of(3.0, 8.0, 8.0, 8.0), arrivals,
        Collections.nCopies(50, 0));
  }

  private static BucketState decide(BucketState state, BucketSpec spec, AcquireRequest request, long now,
      List<Long> due, PriorityQueue<long[]> holders, int cost, int lateMicros) {
    TokenBucketMath.Step step = TokenBucketMath.acquire(state, spec, request, now);
    Acquisition a = step.acquisition();
    for (int j = 1; j <= a.granted(); j++) {
      due.add(a.dueOfUnit(j, spec));
    }
    if (!a.isGranted()) {
      holders.add(new long[] {a.nowMicros() + a.ticketMicros() + lateMicros, cost});
    }
    return step.next();
  }
}
