package io.sluice.dispatcher.dispatch.offsets;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;

/**
 * The settlements a partition's reader has seen lately ({@code sluice-settles} of the records it
 * read), so that a second copy of one is known: a retry written twice after a produce timed out
 * comes back to {@code sluice.ready} twice, and only the first may be called.
 *
 * <p>Bounded: the last {@code capacity} names, the oldest forgotten first. Two copies of one
 * settlement are sent within the producer's delivery timeout and a resend of each other, to the
 * same delay partition with the same not-before, so they come back close together; copies
 * farther apart than {@code capacity} settlements of the partition are both taken.
 */
public final class RecentSettlements {
  /** Per partition: two copies more than this many retries apart in one partition both pass. */
  public static final int CAPACITY = 16_384;

  private final int capacity;
  private final Set<String> seen = new HashSet<>();
  private final ArrayDeque<String> order = new ArrayDeque<>();

  public RecentSettlements(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
    this.capacity = capacity;
  }

  /**
   * True the first time {@code settles} is seen (it is remembered), false for a copy of a
   * settlement seen before.
   */
  public boolean firstSight(String settles) {
    if (!seen.add(settles)) {
      return false;
    }
    order.addLast(settles);
    if (order.size() > capacity) {
      seen.remove(order.removeFirst());
    }
    return true;
  }
}
