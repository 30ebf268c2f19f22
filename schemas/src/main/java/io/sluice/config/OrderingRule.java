package io.sluice.config;

/**
 * Whether a provider keeps the events of one {@code orderingKey} in order, and what it does when
 * the head of a key is dead-lettered. Off by default: a provider without {@code ordering: perKey}
 * takes no sequence number, no Redis call and no header per event.
 *
 * <p>A key is always a tenant's: two tenants' keys of the same name are two keys (tenants are
 * hostile to each other, and one must never hold the other's events back).
 *
 * @param perKey           {@code ordering: perKey}: events of one key are called one at a time, in
 *                         the order they entered {@code sluice.inbound}
 * @param deadLetterFollowers {@code orderingOnDeadHead: deadLetter}: when a key's head is
 *                         dead-lettered, the events of its key already given a turn are
 *                         dead-lettered {@code blocked_by_head} rather than called; {@code release}
 *                         (the default): they are called, in order
 * @param maxKeysInFlight  {@code maxOrderingKeys}: the most keys of one tenant toward this provider
 *                         with events given a turn and not yet settled; an event of a further key
 *                         is dead-lettered {@code not_ordered}. From 1 to {@link #MAX_KEYS_IN_FLIGHT}
 */
public record OrderingRule(boolean perKey, boolean deadLetterFollowers, int maxKeysInFlight) {
  public static final int DEFAULT_KEYS_IN_FLIGHT = 10_000;
  public static final int MAX_KEYS_IN_FLIGHT = 1_000_000;
  public static final OrderingRule OFF = new OrderingRule(false, false, DEFAULT_KEYS_IN_FLIGHT);
}
