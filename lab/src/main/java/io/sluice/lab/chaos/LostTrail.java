package io.sluice.lab.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.serde.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Where each lost id was last written, so a failed run explains itself: the topic, partition and
 * offset of its latest record (by record timestamp) in the pipeline's topics, and whether that
 * record is readable: committed, or held back behind an open transaction (at or past the
 * partition's last stable offset, where no read_committed consumer gets). Records of aborted
 * transactions are not counted as seen. Also lists every partition whose last stable offset
 * stands below its end, with or without lost ids in it.
 *
 * <p>Cheap: two scans of each pipeline topic (committed, then everything), keeping only the
 * records of lost ids; nothing is read when nothing is lost.
 */
final class LostTrail {
  /** One record of a lost id. */
  record Place(String topic, int partition, long offset, long timestamp, boolean heldBack) {
    String partitionName() {
      return topic + "-" + partition;
    }
  }

  /**
   * @param lastSeen         lost id → where its latest record is, e.g.
   *                         {@code sluice.ready-2@302, held back (last stable offset 261)}
   * @param lastSeenByPlace  how many lost ids were last seen in each partition, and how
   * @param heldBack         partitions whose last stable offset stands below their end
   */
  record Trail(Map<String, String> lastSeen, Map<String, Long> lastSeenByPlace,
      List<String> heldBack) {}

  private LostTrail() {}

  static Trail of(String bootstrap, List<String> topics, Collection<String> lostIds,
      int listed, Duration timeout) {
    Map<TopicPartition, Long> stable = endOffsets(bootstrap, topics, IsolationLevel.READ_COMMITTED,
        timeout);
    Map<TopicPartition, Long> ends = endOffsets(bootstrap, topics, IsolationLevel.READ_UNCOMMITTED,
        timeout);
    List<String> heldBack = new ArrayList<>();
    stable.forEach((tp, lso) -> {
      if (lso < ends.get(tp)) {
        heldBack.add(tp + ": last stable offset " + lso + ", end " + ends.get(tp));
      }
    });
    if (lostIds.isEmpty()) {
      return new Trail(Map.of(), Map.of(), heldBack);
    }
    Map<String, Place> latest = latestPlaces(bootstrap, topics, new HashSet<>(lostIds), stable,
        timeout);
    Map<String, String> lastSeen = new TreeMap<>();
    Map<String, Long> byPlace = new TreeMap<>();
    for (String id : new TreeSet<>(lostIds)) {
      Place p = latest.get(id);
      String state = p == null ? "" : p.heldBack()
          ? ", held back behind an open transaction (last stable offset "
              + stable.get(new TopicPartition(p.topic(), p.partition())) + ")"
          : ", committed";
      byPlace.merge(p == null ? "nowhere" : p.partitionName() + state, 1L, Long::sum);
      if (lastSeen.size() < listed) {
        lastSeen.put(id, p == null ? "nowhere" : p.partitionName() + "@" + p.offset() + state);
      }
    }
    return new Trail(lastSeen, byPlace, heldBack);
  }

  /** Each lost id's latest readable or held-back record; aborted records are skipped. */
  private static Map<String, Place> latestPlaces(String bootstrap, List<String> topics,
      Set<String> lost, Map<TopicPartition, Long> stable, Duration timeout) {
    Map<String, Place> latest = new HashMap<>();
    for (String topic : topics) {
      Map<TopicPartition, Set<Long>> committed = new HashMap<>();
      TopicScan.each(bootstrap, topic, IsolationLevel.READ_COMMITTED, timeout, r -> {
        if (lost.contains(idOf(r))) {
          committed.computeIfAbsent(new TopicPartition(topic, r.partition()),
              k -> new HashSet<>()).add(r.offset());
        }
      });
      TopicScan.each(bootstrap, topic, IsolationLevel.READ_UNCOMMITTED, timeout, r -> {
        String id = idOf(r);
        if (!lost.contains(id)) {
          return;
        }
        TopicPartition tp = new TopicPartition(topic, r.partition());
        boolean past = r.offset() >= stable.getOrDefault(tp, Long.MAX_VALUE);
        if (!past && !committed.getOrDefault(tp, Set.of()).contains(r.offset())) {
          return; // an aborted transaction's record: never readable, never handed on
        }
        latest.merge(id, new Place(topic, r.partition(), r.offset(), r.timestamp(), past),
            (a, b) -> b.timestamp() >= a.timestamp() ? b : a);
      });
    }
    return latest;
  }

  private static String idOf(ConsumerRecord<byte[], byte[]> r) {
    try {
      JsonNode event = Json.mapper().readTree(r.value());
      return event != null && event.hasNonNull("id") ? event.get("id").asText() : null;
    } catch (Exception e) {
      return null;
    }
  }

  private static Map<TopicPartition, Long> endOffsets(String bootstrap, List<String> topics,
      IsolationLevel isolation, Duration timeout) {
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-chaos-trail-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.name().toLowerCase(Locale.ROOT)),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (String topic : topics) {
        for (PartitionInfo i : c.partitionsFor(topic, timeout)) {
          parts.add(new TopicPartition(topic, i.partition()));
        }
      }
      Map<TopicPartition, Long> ends = c.endOffsets(parts, timeout);
      Map<TopicPartition, Long> inOrder = new LinkedHashMap<>();
      parts.forEach(tp -> inOrder.put(tp, ends.get(tp)));
      return inOrder;
    }
  }
}
