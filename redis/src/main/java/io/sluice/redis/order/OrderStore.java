package io.sluice.redis.order;

import java.util.Optional;

/**
 * Where ordering keys' turns are kept ({@link RedisOrderStore}: {@code lua/ordering.lua}). The gate
 * gives each ordered event its ticket; the dispatcher reads its key's turn before queuing it, and
 * moves the turn on when the event settles.
 */
public interface OrderStore {
  /** How an ordered event settled. */
  enum Settled {
    /** The provider took it. */
    DELIVERED("delivered"),
    /** Dead-lettered for a reason of its own: its followers may be blocked behind it. */
    DEAD("dead"),
    /** Dead-lettered {@code blocked_by_head}: it blocks nothing further itself. */
    BLOCKED("blocked");

    private final String code;

    Settled(String code) {
      this.code = code;
    }

    /** The script's word for it. */
    public String code() {
      return code;
    }
  }

  /** What {@link #assign} answers. */
  sealed interface Assigned {
    /** The event's turn in its key. */
    record Given(OrderTicket ticket) implements Assigned {}

    /** The tenant has {@code keys} keys in flight, its provider's {@code maxOrderingKeys}. */
    record Full(long keys) implements Assigned {}

    /** Redis did not answer ({@code why}): no turn was given. */
    record Unanswered(String why) implements Assigned {}
  }

  /**
   * What {@link #turn} answers.
   *
   * @param answered false when Redis did not answer (the event waits, as if not its turn)
   * @param state    the key's state; empty when it has none (or when not answered)
   */
  record Read(boolean answered, Optional<KeyTurn> state) {
    public static final Read UNANSWERED = new Read(false, Optional.empty());
  }

  /**
   * Gives the inbound record {@code source} (topic-partition@offset) the next turn of its key, or
   * the turn it was given before (a record read again after a crash gets its ticket again).
   */
  Assigned assign(OrderKeys keys, String orderingKey, String source, int maxKeysInFlight);

  /** Where {@code orderingKey} stands now. */
  Read turn(OrderKeys keys, String orderingKey);

  /**
   * The event holding {@code ticket} settled as {@code how}: its key's turn moves past it, once
   * however often this is told. Does not wait for Redis.
   *
   * @param deadLetterFollowers the provider's {@code orderingOnDeadHead: deadLetter}
   */
  void settle(OrderKeys keys, String orderingKey, OrderTicket ticket, Settled how, boolean deadLetterFollowers);

  /** No store: every assignment unanswered, every key without state, settlements dropped. */
  OrderStore NONE = new OrderStore() {
    @Override
    public Assigned assign(OrderKeys keys, String orderingKey, String source, int maxKeysInFlight) {
      return new Assigned.Unanswered("no ordering store is wired");
    }

    @Override
    public Read turn(OrderKeys keys, String orderingKey) {
      return Read.UNANSWERED;
    }

    @Override
    public void settle(OrderKeys keys, String orderingKey, OrderTicket ticket, Settled how,
        boolean deadLetterFollowers) {
    }
  };
}
