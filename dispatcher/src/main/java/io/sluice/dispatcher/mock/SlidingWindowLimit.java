package io.sluice.dispatcher.mock;

import java.util.ArrayDeque;

/**
 * A strict provider limit: at most {@code limit} accepted calls in ANY window of {@code window}
 * (a sliding log of arrival times), with no burst tolerance at all. The 26th call within one
 * second of the 1st, at a limit of 25 a second, is refused however evenly the 25 were spread.
 * Refused calls are not logged: they take nothing from the provider. Pure: time is passed in;
 * not thread-safe (the mock holds its monitor).
 */
final class SlidingWindowLimit {
  private final int limit;
  private final long windowNanos;
  /** Arrival times of the accepted calls younger than the window, oldest first. */
  private final ArrayDeque<Long> accepted = new ArrayDeque<>();

  SlidingWindowLimit(int limit, long windowNanos) {
    if (limit < 1 || windowNanos <= 0) {
      throw new IllegalArgumentException("limit " + limit + " and window " + windowNanos
          + " ns must be positive");
    }
    this.limit = limit;
    this.windowNanos = windowNanos;
  }

  /** Accepts the call arriving at {@code nowNanos} if fewer than the limit arrived in the window. */
  boolean admit(long nowNanos) {
    while (!accepted.isEmpty() && nowNanos - accepted.peekFirst() >= windowNanos) {
      accepted.pollFirst();
    }
    if (accepted.size() < limit) {
      accepted.addLast(nowNanos);
      return true;
    }
    return false;
  }

  /** After a refusal at {@code nowNanos}: how long until a call would be accepted. */
  long waitNanos(long nowNanos) {
    return accepted.size() < limit ? 0 : Math.max(0, accepted.peekFirst() + windowNanos - nowNanos);
  }

  void clear() {
    accepted.clear();
  }
}
