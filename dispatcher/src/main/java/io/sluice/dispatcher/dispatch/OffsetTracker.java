package io.sluice.dispatcher.dispatch;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The offsets of one partition that the dispatcher has read and not yet settled, and how far it may
 * commit. Pure and single-threaded (the consumer thread owns it).
 *
 * <p>Records of a partition are read in offset order but settle in any order: a fast provider's
 * call finishes before a slow one's, an overflow deferral is acknowledged before a delivery. The
 * committed offset is a promise that everything below it is settled (delivered, deferred or
 * dead-lettered, with the produce acknowledged), so it may only move up to the <em>first</em>
 * unsettled offset. Settled offsets above that gap are remembered until the gap closes.
 *
 * <pre>
 *   read:     10 11 12 13 14
 *   settled:   x     x  x        -> committable = 11 (11 is the first unsettled)
 *   settle 11                    -> committable = 14
 * </pre>
 */
public final class OffsetTracker {
  private final ArrayDeque<Long> pending = new ArrayDeque<>();
  private final Set<Long> settledAhead = new HashSet<>();
  private long next = -1;

  /** Records that {@code offset} was read; offsets must be tracked in increasing order. */
  public void track(long offset) {
    if (!pending.isEmpty() && offset <= pending.peekLast()) {
      throw new IllegalArgumentException(
          "offset " + offset + " tracked after " + pending.peekLast() + ": offsets must increase");
    }
    pending.addLast(offset);
    next = Math.max(next, offset + 1);
  }

  /** Marks {@code offset} settled. Unknown offsets (already committed, or never read) are ignored. */
  public void settle(long offset) {
    if (pending.isEmpty() || offset < pending.peekFirst()) {
      return;
    }
    settledAhead.add(offset);
    while (!pending.isEmpty() && settledAhead.remove(pending.peekFirst())) {
      pending.pollFirst();
    }
  }

  /**
   * The offset to commit: the first unsettled one, or one past the last read when all are settled;
   * empty when nothing was read yet.
   */
  public OptionalLong committable() {
    if (!pending.isEmpty()) {
      return OptionalLong.of(pending.peekFirst());
    }
    return next < 0 ? OptionalLong.empty() : OptionalLong.of(next);
  }

  /** Records read and not yet settled. */
  public int unsettled() {
    return pending.size();
  }
}
