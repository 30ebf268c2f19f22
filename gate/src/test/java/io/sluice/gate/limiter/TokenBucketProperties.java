package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * The gate's invariant, over generated traffic (jqwik shrinks a failure to the shortest history
 * that shows it): whatever a tenant asks and however its queued events come back (on time or
 * late), the units charged to a bucket fall due no denser than the bucket allows, so in any
 * window of length T at most {@code capacity + refill * T} units are due. Checked on
 * {@link TokenBucketMath}, the mirror the script is held to step by step
 * ({@code TokenBucketSpecification}); a Redis loss is {@code TokenBucketSpecification}'s.
 */
class TokenBucketProperties {

  /** One arrival: {@code gapMicros} after the one before, asking {@code cost}. */
  record Arrival(int gapMicros, int cost) {}

  @Provide
  Arbitrary<BucketSpec> specs() {
    return Combinators.combine(
            Arbitraries.integers().between(1, 20),
            Arbitraries.doubles().between(0.5, 50).ofScale(2),
            Arbitraries.longs().between(0, 5_000_000))
        .as(BucketSpec::new);
  }

  @Provide
  Arbitrary<List<Arrival>> arrivals() {
    return Combinators.combine(Arbitraries.integers().between(0, 400_000), Arbitraries.integers().between(1, 4))
        .as(Arrival::new).list().ofMinSize(1).ofMaxSize(120);
  }

  @Property(tries = 1000, seed = "20261129")
  void unitsFallDueNoDenserThanCapacityPlusRefillTimesWindow(@ForAll("specs") BucketSpec spec,
      @ForAll("arrivals") List<Arrival> arrivals,
      @ForAll @Size(min = 120, max = 120) List<@IntRange(min = 0, max = 2_000_000) Integer> lateness) {
    BucketState state = null;
    List<Long> due = new ArrayList<>();
    // Queued events come back at their turn plus some lateness, charged as ticket holders.
    PriorityQueue<long[]> holders = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    long now = 0;
    int n = 0;
    for (Arrival arrival : arrivals) {
      now += arrival.gapMicros();
      while (!holders.isEmpty() && holders.peek()[0] <= now) {
        long[] holder = holders.poll();
        state = decide(state, spec, AcquireRequest.holding((int) holder[1]), holder[0], due, holders,
            (int) holder[1], lateness.get(n++ % lateness.size()));
      }
      if (arrival.cost() <= spec.capacity()) {
        state = decide(state, spec, AcquireRequest.single(arrival.cost()), now, due, holders,
            arrival.cost(), lateness.get(n++ % lateness.size()));
      }
    }
    assertNoDenserThanTheBucket(due, spec);
  }

  private static BucketState decide(BucketState state, BucketSpec spec, AcquireRequest request,
      long now, List<Long> due, PriorityQueue<long[]> holders, int cost, int lateMicros) {
    TokenBucketMath.Step step = TokenBucketMath.acquire(state, spec, request, now);
    Acquisition a = step.acquisition();
    for (int j = 1; j <= a.granted(); j++) {
      due.add(a.nowMicros() + (long) Math.ceil(Math.max(0, (j - a.levelBefore()) * spec.microsPerUnit())));
    }
    if (!a.isGranted()) {
      holders.add(new long[] {a.nowMicros() + a.ticketMicros() + lateMicros, cost});
    }
    return step.next();
  }

  /**
   * In any window [t_i, t_k] of the due times, at most capacity + refill * (t_k - t_i) units. Each
   * due time is rounded up to a whole microsecond (as the gate rounds up to a millisecond), which
   * can bring two of them up to 1 us closer than the math spaced them: the window counts that
   * microsecond (found by this property: capacity 1 at 1.54/s, units 649,350.65 us apart, due
   * 649,350 us apart).
   */
  private static void assertNoDenserThanTheBucket(List<Long> dueTimes, BucketSpec spec) {
    List<Long> sorted = new ArrayList<>(dueTimes);
    Collections.sort(sorted);
    for (int i = 0; i < sorted.size(); i++) {
      for (int k = i; k < sorted.size(); k++) {
        double window = (sorted.get(k) - sorted.get(i) + 1) / 1e6;
        assertTrue(k - i + 1 <= spec.capacity() + spec.refillPerSecond() * window + 1e-6,
            (k - i + 1) + " units due in " + window + " s from " + sorted.get(i) / 1e6 + " s, bucket " + spec);
      }
    }
  }
}
