package io.sluice.embedded.mock;

import java.util.ArrayDeque;

/**
 * A strict provider limit: at most {@code limit} units accepted in ANY window of {@code window}
 * (a sliding log of arrival times, each with its weight: 1 for a call, the call's cost for a cost
 * limit), with no burst tolerance at all. The 26th call within one second of the 1st, at a limit of
 * 25 a second, is refused however evenly the 25 were spread. Refused calls are not logged: they
 * take nothing from the provider. Pure: time is passed in; not thread-safe (the mock holds its
 * monitor).
 *
 * <p>Checking and taking are separate ({@link #fits}, {@link #take}) so that a provider enforcing
 * several limits can refuse a call that breaks any one of them without charging it to the others.
 */
final class SlidingWindowLimit {
  private final long limit;
  private final long windowNanos;
  /** Arrival time and weight of the accepted calls younger than the window, oldest first. */
  private final ArrayDeque<long[]> accepted = new ArrayDeque<>();
  /** The sum of the weights in {@link #accepted}. */
  private long held;

  SlidingWindowLimit(long limit, long windowNanos) {
    if (limit < 1 || windowNanos <= 0) {
      throw new IllegalArgumentException("limit " + limit + " and window " + windowNanos
          + " ns must be positive");
    }
    this.limit = limit;
    this.windowNanos = windowNanos;
  }

  long limit() {
    return limit;
  }

  long windowNanos() {
    return windowNanos;
  }

  /** Accepts the call arriving at {@code nowNanos} if fewer than the limit arrived in the window. */
  boolean admit(long nowNanos) {
    if (!fits(nowNanos, 1)) {
      return false;
    }
    take(nowNanos, 1);
    return true;
  }

  /** Whether {@code weight} more units arriving at {@code nowNanos} stay within the limit. */
  boolean fits(long nowNanos, long weight) {
    evict(nowNanos);
    return held + weight <= limit;
  }

  /** Records {@code weight} units accepted at {@code nowNanos} (after {@link #fits} said yes). */
  void take(long nowNanos, long weight) {
    evict(nowNanos);
    accepted.addLast(new long[] {nowNanos, weight});
    held += weight;
  }

  /** After a refusal at {@code nowNanos}: how long until a call would be accepted. */
  long waitNanos(long nowNanos) {
    return waitNanos(nowNanos, 1);
  }

  /**
   * How long until {@code weight} units arriving would be accepted: until enough of the oldest
   * units have left the window. A weight above the limit never fits: the whole window then.
   */
  long waitNanos(long nowNanos, long weight) {
    evict(nowNanos);
    if (weight > limit) {
      return windowNanos;
    }
    long excess = held + weight - limit;
    for (long[] call : accepted) {
      if (excess <= 0) {
        break;
      }
      excess -= call[1];
      if (excess <= 0) {
        return Math.max(0, call[0] + windowNanos - nowNanos);
      }
    }
    return 0;
  }

  /** Units still available now (the {@code r} a provider announces). */
  long remaining(long nowNanos) {
    evict(nowNanos);
    return Math.max(0, limit - held);
  }

  /** How long until the oldest accepted unit leaves the window (0 when the window is empty). */
  long resetNanos(long nowNanos) {
    evict(nowNanos);
    return accepted.isEmpty() ? 0 : Math.max(0, accepted.peekFirst()[0] + windowNanos - nowNanos);
  }

  void clear() {
    accepted.clear();
    held = 0;
  }

  private void evict(long nowNanos) {
    while (!accepted.isEmpty() && nowNanos - accepted.peekFirst()[0] >= windowNanos) {
      held -= accepted.pollFirst()[1];
    }
  }
}
