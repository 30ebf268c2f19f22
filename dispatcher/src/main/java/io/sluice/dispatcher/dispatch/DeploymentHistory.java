package io.sluice.dispatcher.dispatch;

import io.sluice.config.SluiceConfig;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this deployment of Sluice ran before, as Kafka remembers it: the gate's application
 * group or the dispatchers' group has committed offsets.
 *
 * <p>A starting dispatcher marks Redis's slots ({@code SlotMarkers}) so that a Redis no role used
 * yet is not read as one that lost its data. But after a FLUSHALL or a restart without
 * persistence, while no script ran, Redis holds no marker either way; only Kafka tells the two
 * apart. Marking such slots "intact" let a gate that started after the dispatchers rebuild every
 * bucket full while paid reservations of the lost ones still waited in the ladder (a chaos run:
 * p-closed/free-4 admitted 8.9 beyond capacity + rate·T after the Redis restart at 123 s). The
 * gate asks the same of its own group ({@code GateHistory}).
 */
final class DeploymentHistory {
  private static final Logger LOG = LoggerFactory.getLogger(DeploymentHistory.class);

  private DeploymentHistory() {}

  static boolean ranBefore(SluiceConfig config) {
    List<String> groups = List.of(config.gate().applicationId(), config.dispatcher().groupId());
    try (Admin admin = Admin.create(config.kafka().clientProperties())) {
      for (String group : groups) {
        if (!admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS).isEmpty()) {
          return true;
        }
      }
      return false;
    } catch (Exception e) {
      // Stricter, never looser: slots without a marker are then taken as lost.
      LOG.warn("dispatcher: could not read the committed offsets of {} ({}); treating slots "
          + "without a marker in Redis as lost", groups, e.toString());
      return true;
    }
  }
}
