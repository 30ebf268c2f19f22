package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The leak's invariant, over generated histories of claims from any number of instances, 429s
 * (pauses and rate cuts) and losses of Redis's state (jqwik shrinks a failure to the shortest
 * history that shows it): the slots ever granted, in the order they were granted, are at least
 * {@code 1e6 / rate} microseconds apart, so no window of length T holds more than
 * {@code rate * T + 1} calls ({@link LeakMath}'s class comment argues it; this checks it).
 */
class LeakMathProperties {

  /** What happens next, {@code gapMicros} after the step before. */
  enum Kind { CLAIM, THROTTLE, WIPE }

  record Step(Kind kind, int gapMicros, int wanted, int retryAfterMillis) {}

  @Provide
  Arbitrary<List<Step>> histories() {
    Arbitrary<Kind> kind = Arbitraries.frequency(
        net.jqwik.api.Tuple.of(12, Kind.CLAIM), net.jqwik.api.Tuple.of(2, Kind.THROTTLE),
        net.jqwik.api.Tuple.of(1, Kind.WIPE));
    return Combinators.combine(kind, Arbitraries.integers().between(0, 300_000),
            Arbitraries.integers().between(1, 10), Arbitraries.integers().between(0, 2_000))
        .as(Step::new).list().ofMinSize(1).ofMaxSize(150);
  }

  @Property(tries = 1000, seed = "20261129")
  void slotsAreAtLeastOneIntervalOfTheConfiguredRateApart(
      @ForAll @DoubleRange(min = 0.5, max = 2_000) double rate,
      @ForAll @LongRange(min = 0, max = 500_000) long lookaheadMicros,
      @ForAll("histories") List<Step> history) {
    LeakMath math = new LeakMath(new LeakConfig(0.1, 30_000_000), LeakMath.Memory.LOSABLE);
    LeakState state = LeakState.EMPTY;
    List<Long> slots = new ArrayList<>();
    long lastSlotClaimedAt = 0;
    long now = 1_000_000;
    for (Step step : history) {
      now += step.gapMicros();
      switch (step.kind()) {
        case CLAIM -> {
          LeakMath.ClaimStep claim = math.claim(state, now, rate, step.wanted(), lookaheadMicros);
          for (int i = 0; i < claim.claim().granted(); i++) {
            slots.add(claim.claim().slotMicros(i));
            lastSlotClaimedAt = claim.claim().slotMicros(i);
          }
          state = claim.next();
        }
        case THROTTLE -> state = math.throttled(state, now, rate, step.retryAfterMillis(),
            Math.min(now, lastSlotClaimedAt)).next();
        case WIPE -> state = LeakState.EMPTY; // Redis lost the key: a restart, FLUSHALL
      }
    }
    double minimumGap = 1e6 / rate;
    for (int i = 1; i < slots.size(); i++) {
      long gap = slots.get(i) - slots.get(i - 1);
      assertTrue(gap >= minimumGap, "slot " + i + " only " + gap + " us after the one before, at "
          + rate + "/s (at least " + minimumGap + " us): " + slots);
    }
  }
}
