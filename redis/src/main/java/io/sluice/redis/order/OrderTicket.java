package io.sluice.redis.order;

import java.util.Optional;

/**
 * An ordered event's turn in its key, given once by the gate on the event's first sight and
 * carried in the header {@code sluice-order} as {@code v1 <epoch> <seq>}.
 *
 * @param epoch when the key's turns began (Redis TIME in microseconds): a ticket of another
 *              epoch than the key's now was given before the key drained or Redis lost it
 * @param seq   the event's place in its key, from 1, in the order the gate read the key's events
 */
public record OrderTicket(long epoch, long seq) {
  private static final String VERSION = "v1";

  /** The header's value. */
  public String encoded() {
    return VERSION + " " + epoch + " " + seq;
  }

  /** The ticket a header's value holds; empty when absent or not a ticket of this version. */
  public static Optional<OrderTicket> decoded(String text) {
    if (text == null) {
      return Optional.empty();
    }
    String[] parts = text.split(" ", -1);
    if (parts.length != 3 || !parts[0].equals(VERSION)) {
      return Optional.empty();
    }
    try {
      long epoch = Long.parseLong(parts[1]);
      long seq = Long.parseLong(parts[2]);
      return seq >= 1 ? Optional.of(new OrderTicket(epoch, seq)) : Optional.empty();
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
