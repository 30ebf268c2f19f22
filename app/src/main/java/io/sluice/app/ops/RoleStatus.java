package io.sluice.app.ops;

/**
 * The state of one role of this instance (gate, relay, dispatcher) as {@code /ready} and
 * {@code /live} show it.
 *
 * @param state   the role's own word for its state, e.g. a Kafka Streams state {@code RUNNING}
 * @param healthy whether that state counts as ready. The role decides: a Kafka Streams gate that is
 *                {@code REBALANCING} is healthy (it is moving work, not failing), one in
 *                {@code ERROR} or {@code NOT_RUNNING} is not.
 * @param live    whether the process can still do the role's work: true unless the role failed
 *                beyond what its supervisor restarts (the process is then exiting). A role that is
 *                unhealthy or restarting is live: restarting the process would not cure a broker
 *                or Redis that is away.
 */
public record RoleStatus(String state, boolean healthy, boolean live) {
  public static RoleStatus healthy(String state) {
    return new RoleStatus(state, true, true);
  }

  /** Not ready, but live: stuck behind a dependency, stopped and about to be restarted. */
  public static RoleStatus unhealthy(String state) {
    return new RoleStatus(state, false, true);
  }

  /** Neither ready nor live: the role failed more often than its supervisor restarts it. */
  public static RoleStatus failed(String state) {
    return new RoleStatus(state, false, false);
  }
}
