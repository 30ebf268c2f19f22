package io.sluice.redis.order;

import java.util.Optional;

/**
 * What the dispatcher does with an ordered event it read: call it, let it wait for its turn, or
 * dead-letter it behind a dead head. Pure: the key's state is read by the caller.
 *
 * <p>Only the key's head ({@code seq == next}) is called, and {@code next} moves only when the
 * head settles (delivered or dead-lettered, {@code ordering.lua settle}), so no two events of a
 * key are ever out at once and each is called after the one before it has its outcome. A ticket
 * whose turn passed ({@code seq < next}: its settlement was written and the event read again, as
 * after a crash between the two), or whose key's turns it does not belong to (another epoch, or no
 * state: the key drained, expired or Redis lost it) has nothing left to wait for: it is called.
 */
public sealed interface OrderTurn {
  /** The longest a follower waits at once before its key is read again. */
  long MAX_WAIT_MILLIS = 30_000;

  /** Its turn (or nothing to wait for): called now. */
  record Call() implements OrderTurn {}

  /**
   * Not its turn: {@code ahead} events of its key are before it; it waits {@code waitMillis}
   * round the ladder and is judged again.
   */
  record Wait(long ahead, long waitMillis) implements OrderTurn {}

  /** Its turn, behind a dead head whose followers are dead-lettered: {@code blocked_by_head}. */
  record Blocked() implements OrderTurn {}

  /**
   * @param ticket   the event's ticket
   * @param state    its key's state now; empty when the key has none
   * @param stepMillis the ladder's smallest step: a follower one behind the head waits that long,
   *                 one further behind as many steps as events before it, at most
   *                 {@link #MAX_WAIT_MILLIS}
   */
  static OrderTurn of(OrderTicket ticket, Optional<KeyTurn> state, long stepMillis) {
    if (state.isEmpty() || state.get().epoch() != ticket.epoch() || ticket.seq() < state.get().next()) {
      return new Call();
    }
    KeyTurn key = state.get();
    long ahead = ticket.seq() - key.next();
    if (ahead == 0) {
      return ticket.seq() <= key.blocked() ? new Blocked() : new Call();
    }
    long wait = ahead > MAX_WAIT_MILLIS / Math.max(1, stepMillis) ? MAX_WAIT_MILLIS
        : Math.min(MAX_WAIT_MILLIS, ahead * stepMillis);
    return new Wait(ahead, Math.max(stepMillis, wait));
  }
}
