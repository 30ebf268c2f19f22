package io.sluice.lab.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a whole topic (committed records, up to its end when the scan starts), in no group; or,
 * read uncommitted, every record written, past an open transaction too.
 */
final class TopicScan {
  private TopicScan() {}

  static void each(String bootstrap, String topic, Duration timeout,
      Consumer<ConsumerRecord<byte[], byte[]>> each) {
    each(bootstrap, topic, IsolationLevel.READ_COMMITTED, timeout, each);
  }

  static void each(String bootstrap, String topic, IsolationLevel isolation, Duration timeout,
      Consumer<ConsumerRecord<byte[], byte[]>> each) {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-chaos-scan-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.name().toLowerCase(Locale.ROOT),
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(topic, timeout)) {
        parts.add(new TopicPartition(topic, i.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts, timeout));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!end.isEmpty()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("could not read " + topic + " within " + timeout);
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          each.accept(r);
        }
        end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
      }
    }
  }
}
