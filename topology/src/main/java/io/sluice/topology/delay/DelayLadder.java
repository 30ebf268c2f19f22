package io.sluice.topology.delay;

import java.time.Duration;
import java.util.List;

/**
 * Which delay topic a waiting record goes to, and when the relay lets it out. Pure.
 *
 * <h2>Why "the largest step not above the wait", and why records hop</h2>
 *
 * The relay can only release a partition's records in order, so a record whose time comes early
 * but sits behind a later one is released late (never early). Each step topic therefore holds
 * records for at most its own step: a record placed at time {@code p} in step {@code S} leaves at
 * {@code min(notBefore, p + S)}. Placing a wait {@code w} in the largest step {@code S <= w} makes
 * {@code p + S <= notBefore}, so within a step topic records leave in the order they arrived
 * (p + S is monotone in p): no head-of-line blocking there. A record that leaves before its
 * not-before hops to the step that fits what is left of its wait, so a 47 s wait takes 30 s + 5 s +
 * 5 s + 5 s + 1 s + the rest. Only in the smallest step, which also takes waits shorter than
 * itself, can a record wait behind another, and then by less than that step (1 s by default; add a
 * smaller step to the ladder for finer release).
 */
public record DelayLadder(List<Duration> steps) {
  public DelayLadder {
    if (steps.isEmpty()) {
      throw new IllegalArgumentException("a ladder needs at least one step");
    }
    steps = List.copyOf(steps);
    for (int i = 1; i < steps.size(); i++) {
      if (steps.get(i).compareTo(steps.get(i - 1)) <= 0) {
        throw new IllegalArgumentException("ladder steps must increase: " + steps);
      }
    }
  }

  /** The step for a record that must wait {@code waitMillis} more: the largest step not above it. */
  public Duration stepFor(long waitMillis) {
    Duration chosen = steps.get(0);
    for (Duration step : steps) {
      if (step.toMillis() <= waitMillis) {
        chosen = step;
      }
    }
    return chosen;
  }

  /**
   * When the relay lets a record out of a step topic: at its not-before, or when it has sat there
   * for the whole step, whichever comes first.
   *
   * @param placedAtMillis the record's timestamp in the step topic (when it was placed there)
   */
  public static long releaseAt(long placedAtMillis, long notBeforeMillis, Duration step) {
    return Math.min(notBeforeMillis, placedAtMillis + step.toMillis());
  }
}
