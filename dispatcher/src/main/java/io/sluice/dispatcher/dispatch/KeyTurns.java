package io.sluice.dispatcher.dispatch;

import io.sluice.config.ProviderConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.order.OrderKeys;
import io.sluice.redis.order.OrderStore;
import io.sluice.redis.order.OrderTicket;
import io.sluice.redis.order.OrderTurn;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.util.Optional;

/**
 * The dispatcher's side of ordering keys: whether an ordered event read from {@code sluice.ready}
 * is its key's head ({@link OrderTurn}, on its key's state in the {@link OrderStore}), and, when an
 * ordered event settles for good (delivered, or dead-lettered), moving its key's turn on. Only a
 * head ever gets past {@link Arrivals}: a follower waits round the ladder ({@code ordering}), so
 * every event of a key in a lane, a pause's hold or a call is its key's one head, and whatever
 * happens to it there (queued, overflowed, parked, paused, retried, its partition moved) holds
 * only its own key.
 *
 * <p>The turn is moved before the settlement's record is written: the next event of the key is
 * judged only once it is read again, which is after the outcome was decided. An event with no
 * ticket (unordered, or its provider does not order) costs nothing here. Thread-safe.
 */
final class KeyTurns {
  private final OrderStore store;
  /** The ladder's smallest step: the least a follower waits. */
  private final long stepMillis;
  /** The configuration now (a reload replaces it): which providers order and how. */
  private volatile SluiceConfig current;

  KeyTurns(OrderStore store, SluiceConfig config) {
    this.store = store;
    this.stepMillis = config.ladder().get(0).toMillis();
    this.current = config;
  }

  void reload(SluiceConfig next) {
    current = next;
  }

  /**
   * Whether {@code entry} may go to its lane: {@link OrderTurn.Call} for an unordered event or its
   * key's head; a follower waits ({@link OrderTurn.Wait}, also when Redis does not answer: it is
   * never called on a guess); a head behind a dead one may be {@link OrderTurn.Blocked}.
   */
  OrderTurn turn(DispatchEntry entry) {
    Optional<OrderTicket> ticket = ticket(entry);
    if (ticket.isEmpty() || !orders(entry)) {
      return new OrderTurn.Call();
    }
    OrderStore.Read read = store.turn(keys(entry), entry.event().orderingKey());
    if (!read.answered()) {
      return new OrderTurn.Wait(0, stepMillis);
    }
    return OrderTurn.of(ticket.get(), read.state(), stepMillis);
  }

  /** {@code entry} was delivered: its key's turn moves on. */
  void delivered(DispatchEntry entry) {
    settled(entry, OrderStore.Settled.DELIVERED);
  }

  /** {@code entry} was dead-lettered for {@code reason}: its key's turn moves on. */
  void dead(DispatchEntry entry, Reason reason) {
    settled(entry, reason == Reason.BLOCKED_BY_HEAD ? OrderStore.Settled.BLOCKED : OrderStore.Settled.DEAD);
  }

  private void settled(DispatchEntry entry, OrderStore.Settled how) {
    Optional<OrderTicket> ticket = ticket(entry);
    if (ticket.isEmpty()) {
      return;
    }
    ProviderConfig provider = current.providers().get(entry.event().provider());
    boolean deadLetterFollowers = provider != null && provider.intake().ordering().deadLetterFollowers();
    store.settle(keys(entry), entry.event().orderingKey(), ticket.get(), how, deadLetterFollowers);
  }

  private boolean orders(DispatchEntry entry) {
    ProviderConfig provider = current.providers().get(entry.event().provider());
    return provider != null && provider.intake().orders();
  }

  /** The entry's ticket: only an event with a key and a ticket the gate wrote has one. */
  private static Optional<OrderTicket> ticket(DispatchEntry entry) {
    if (entry.event() == null || entry.event().orderingKey() == null) {
      return Optional.empty();
    }
    return HeaderValues.last(entry.headers(), HeaderNames.ORDER).flatMap(OrderTicket::decoded);
  }

  private static OrderKeys keys(DispatchEntry entry) {
    return new OrderKeys(entry.event().provider(), entry.event().tenant());
  }
}
