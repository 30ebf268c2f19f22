package io.sluice.config;

import java.time.Duration;
import java.util.List;

/**
 * How many delay records a wait costs on a ladder, for start-up to bound a provider's
 * {@code maxDelay} ({@code ConfigChecks}). Pure.
 *
 * <p>The walk is the relay's ({@code DelayLadder}: a wait goes to the largest step not above it,
 * leaves at its not-before if that is within the hold after the step ends, else hops), stated
 * here because the configuration cannot name the topics' package, which names it;
 * {@code LadderCostAgreementTest} holds the two to one answer. A day at a 10m step is 144
 * records; with a 6h step, 4.
 */
public final class LadderCost {
  private LadderCost() {}

  /** Delay records for a wait of {@code waitMillis} placed now, with no time lost between hops. */
  public static long recordsFor(List<Duration> steps, long waitMillis) {
    long hold = Math.max(steps.get(0).toMillis(), 1000);
    long records = 1;
    long placed = 0;
    long step = stepFor(steps, waitMillis);
    while (waitMillis - (placed + step) > hold) {
      placed += step;
      step = stepFor(steps, waitMillis - placed);
      records++;
    }
    return records;
  }

  private static long stepFor(List<Duration> steps, long waitMillis) {
    long chosen = steps.get(0).toMillis();
    for (Duration step : steps) {
      if (step.toMillis() <= waitMillis) {
        chosen = step.toMillis();
      }
    }
    return chosen;
  }
}
