package io.sluice.topology.gate;

import io.sluice.config.SluiceConfig;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this gate application ran before, as Kafka remembers it: its consumer group
 * ({@code gate.applicationId}) has committed offsets.
 *
 * <p>Redis alone cannot tell a first use from a total loss: after a FLUSHALL, or a restart without
 * persistence, while no gate ran, it holds no slot marker either way. Kafka outlives that loss, and
 * an application that committed offsets may have paid reservations waiting in the ladder, so its
 * buckets must not start full ({@code LettuceTokenBucketStore.markSlots}).
 */
final class GateHistory {
  private static final Logger LOG = LoggerFactory.getLogger(GateHistory.class);

  private GateHistory() {}

  static boolean ranBefore(SluiceConfig config) {
    String group = config.gate().applicationId();
    try (Admin admin = Admin.create(config.kafka().clientProperties())) {
      Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
      return !offsets.isEmpty();
    } catch (Exception e) {
      // Stricter, never looser: a Redis without markers is then taken for one that lost its data,
      // and tenants wait for one reservation horizon plus one refill.
      LOG.warn("gate: could not read the committed offsets of {} ({}); treating slots without a "
          + "marker in Redis as lost", group, e.toString());
      return true;
    }
  }
}
