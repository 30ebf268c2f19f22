package io.sluice.dispatcher.ops;

/**
 * The state of one role of this instance (gate, relay, dispatcher) as {@code /health} shows it.
 *
 * @param state   the role's own word for its state, e.g. a Kafka Streams state {@code RUNNING}
 * @param healthy whether that state counts as up. The role decides: a Kafka Streams gate that is
 *                {@code REBALANCING} is healthy (it is moving work, not failing), one in
 *                {@code ERROR} or {@code NOT_RUNNING} is not.
 */
public record RoleStatus(String state, boolean healthy) {
  public static RoleStatus healthy(String state) {
    return new RoleStatus(state, true);
  }

  public static RoleStatus unhealthy(String state) {
    return new RoleStatus(state, false);
  }
}
