package io.sluice.config;

import java.util.Map;

/**
 * How every consumer group member of Sluice (the gate's Kafka Streams consumers, the relay's and
 * the dispatcher's consumers) is declared dead: after 6 s without a heartbeat, not Kafka's
 * default 45 s.
 *
 * <p>A member killed with SIGKILL sends no LeaveGroup: its partitions are not read at all until
 * the group's session timeout expires (the chaos runs measured stalls of 45 s and more per kill;
 * {@code SigkillTakeoverIT}: 45.3 s before, 6.5 to 6.8 s after). 6 s is the broker's default
 * {@code group.min.session.timeout.ms}, the shortest a member may ask for; a heartbeat every
 * 1.5 s (a quarter of it) lets the broker see four missed beats before it gives up. Heartbeats
 * come from the client's own thread, so only a stall of the whole JVM longer than 6 s (a GC
 * pause, a frozen host) costs a needless rebalance, and that loses nothing either.
 *
 * <p>Not static membership: it spares the rebalance when the <em>same</em> instance comes back
 * within the timeout, but a killed member still holds its partitions for the whole session
 * timeout, which is the stall to cut. Not the KIP-848 consumer protocol
 * ({@code group.protocol=consumer}): its session timeout is the broker's
 * {@code group.consumer.session.timeout.ms} (45 s, and at least
 * {@code group.consumer.min.session.timeout.ms}, also 45 s by default), so it cannot be shortened
 * from the client, only by reconfiguring every broker.
 */
public final class GroupMembership {
  /** The group session timeout of every Sluice consumer. */
  public static final int SESSION_TIMEOUT_MS = 6000;
  /** Their heartbeat interval. */
  public static final int HEARTBEAT_INTERVAL_MS = 1500;

  private GroupMembership() {}

  /** The consumer properties that give a killed member's partitions to the others within 6 s. */
  public static Map<String, Object> fastTakeover() {
    return Map.of("session.timeout.ms", SESSION_TIMEOUT_MS, "heartbeat.interval.ms", HEARTBEAT_INTERVAL_MS);
  }
}
