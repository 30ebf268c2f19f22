package io.sluice.gate;

import java.util.UUID;
import org.apache.kafka.streams.KafkaStreams;

/**
 * How many gate instances share the quotas, for the {@code local} onRedisDown share
 * ({@code 1 / instances}).
 *
 * <p>Kafka Streams lists the instances of an application in its metadata only when each sets
 * {@code application.server}; without it the list is empty and every instance took the whole
 * quota during an outage. The gate serves no interactive queries, so each instance sets a unique
 * placeholder endpoint that is never dialled ({@code .invalid} is reserved, RFC 2606): it only
 * names the instance in the group's metadata.
 */
final class GateInstances {
  private GateInstances() {}

  /** A unique {@code host:port} for {@code application.server}; never listened on or dialled. */
  static String placeholderEndpoint() {
    return "gate-" + UUID.randomUUID() + ".invalid:1";
  }

  /**
   * This instance's share: 1 over the instances in the last assignment's metadata. An instance
   * that died still counts until the group rebalances, which makes the share smaller (stricter).
   * Before the first assignment, or if Streams cannot say, 1.
   */
  static double share(KafkaStreams streams) {
    try {
      return 1.0 / Math.max(1, streams.metadataForAllStreamsClients().size());
    } catch (RuntimeException e) {
      return 1.0; // not started yet, or shutting down
    }
  }
}
