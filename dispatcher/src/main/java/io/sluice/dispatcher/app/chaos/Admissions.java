package io.sluice.dispatcher.app.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.serde.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The gate's admission instants, read from {@code sluice.ready}: the gate stamps an admitted record
 * with its admission time, and the relay stamps a paid (reserved) record it returns with its due
 * time, the instant its unit counts in the bucket. A record the dispatcher sent round the ladder
 * (a retry, an overflow) comes back later with the same id, so the earliest instant per id is its
 * admission.
 */
final class Admissions {
  /** Where an event went and its cost. */
  record Key(String provider, String tenant) {}

  private Admissions() {}

  /** (provider, tenant) → admissions sorted by time. */
  static Map<Key, List<OverAdmission.Admission>> read(String bootstrap, String readyTopic,
      Duration timeout) {
    Map<String, Long> earliest = new HashMap<>();
    Map<String, Key> keyOf = new HashMap<>();
    Map<String, Double> costOf = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-chaos-admissions-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(readyTopic, timeout)) {
        parts.add(new TopicPartition(readyTopic, i.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts, timeout));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!end.isEmpty()) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("could not read " + readyTopic + " within " + timeout);
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          JsonNode event = parse(r.value());
          if (event == null || !event.hasNonNull("id")) {
            continue;
          }
          String id = event.get("id").asText();
          earliest.merge(id, r.timestamp(), Math::min);
          keyOf.putIfAbsent(id, new Key(event.path("provider").asText(),
              event.path("tenant").asText()));
          costOf.putIfAbsent(id, event.path("cost").asDouble(1));
        }
        end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
      }
    }
    Map<Key, List<OverAdmission.Admission>> byKey = new HashMap<>();
    earliest.forEach((id, at) -> byKey.computeIfAbsent(keyOf.get(id), k -> new ArrayList<>())
        .add(new OverAdmission.Admission(at, costOf.get(id))));
    byKey.values().forEach(l -> l.sort((a, b) -> Long.compare(a.atMillis(), b.atMillis())));
    return byKey;
  }

  private static JsonNode parse(byte[] value) {
    try {
      return value == null ? null : Json.mapper().readTree(value);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
