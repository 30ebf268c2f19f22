package io.sluice.schemas.topic;

import java.time.Duration;
import java.util.List;

/**
 * Which delay topic a waiting record goes to, and when the relay lets it out. Pure.
 *
 * <h2>Why "the largest step not above the wait", and why records hop</h2>
 *
 * The relay holds at most {@code Relay.READ_AHEAD} records of a partition in memory and releases
 * each as it falls due, in any order; a record it has not read yet cannot leave. So each step topic
 * keeps its records close to the order in which they fall due: a record placed at time {@code p}
 * in step {@code S} leaves at {@code p + S}, or at its not-before if that comes first or within
 * the hold ({@link #holdMillis}: the smallest step, at least 1 s) after {@code p + S}. Placing a wait {@code w} in the largest step
 * {@code S <= w} makes {@code p + S <= notBefore}, so within a step topic records fall due in the
 * order they arrived (p + S is monotone in p), give or take the hold: the relay's read-ahead
 * does not fill with records due later than one it has not read. A record that leaves more than
 * the hold before its not-before hops to the step that fits what is left of its
 * wait, so a 47 s wait takes 30 s + 5 s + 5 s + 5 s + the rest (held in the 1 s step to its
 * not-before). Only in the smallest step, which also takes waits shorter than itself, do records
 * mix more, by less than that step.
 *
 * <h2>Why a record is not hopped for the last step</h2>
 *
 * A hop is a produce, a commit and a read. A read_committed reader sees a record only once every
 * transaction open before it on its partition has ended, and the gate's and the dispatcher's
 * transactions share the step topics' partitions: under load (the bench's relay scenario) a hopped
 * record was read 400-800 ms after the relay wrote it. A record with less than the hold left when
 * its stay ends would be late by that much; it is held in memory instead (it is read already),
 * which costs the relay at most the hold's worth of records per partition. The floor of 1 s is
 * for ladders with a step below it: their lateness would otherwise be that read delay.
 */
public record DelayLadder(List<Duration> steps) {
  /** The shortest hold (see "Why a record is not hopped for the last step"). */
  public static final Duration HOLD_FLOOR = Duration.ofSeconds(1);

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

  /**
   * How long before its not-before a record may leave its step and be held by the relay rather
   * than hopped: the smallest step, and at least {@link #HOLD_FLOOR}.
   */
  public long holdMillis() {
    return Math.max(steps.get(0).toMillis(), HOLD_FLOOR.toMillis());
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
   * When the relay lets a record out of a step topic: at its not-before if that comes before the
   * step ends or within the smallest step after; else when it has sat there for the whole step
   * (then it hops).
   *
   * @param placedAtMillis the record's timestamp in the step topic (when it was placed there)
   */
  public long releaseAt(long placedAtMillis, long notBeforeMillis, Duration step) {
    long stayEnds = placedAtMillis + step.toMillis();
    return notBeforeMillis - stayEnds <= holdMillis() ? notBeforeMillis : stayEnds;
  }
}
