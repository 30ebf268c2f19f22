package io.sluice.app;

import io.sluice.config.KafkaConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reconciles {@code sluice.inbound} against {@code sluice.outcomes} and {@code sluice.dlq}: every
 * inbound event must have ended in one of them. Reads each topic from the beginning up to its end
 * at the moment verify starts (committed records only), without joining any consumer group.
 *
 * <p>An inbound record is known by its event id when its value has one; a record too malformed to
 * have an id is known by its coordinates ({@code inbound-0@17}), which its dead letter names in
 * {@code sluice-source}.
 */
public final class Verify {
  /** What verify found. {@code missing} are inbound ids with no outcome and no dead letter. */
  public record Report(long inbound, long uniqueIds, long delivered, long deadLettered,
      Map<String, Long> deadByReason, List<String> missing) {
    public boolean complete() {
      return missing.isEmpty();
    }
  }

  private Verify() {}

  public static Report run(String bootstrap, Topics topics, Duration timeout) {
    return run(new KafkaConfig(bootstrap, ""), topics, timeout);
  }

  public static Report run(KafkaConfig kafka, Topics topics, Duration timeout) {
    Set<String> inboundIds = new HashSet<>();
    // Each inbound record's coordinates, by id: a record dead at the gate before its id was read
    // (bad cost, oversize) is named by its coordinates only.
    Map<String, List<String>> coordinatesOf = new HashMap<>();
    long[] inbound = {0};
    Set<String> delivered = new HashSet<>();
    Set<String> dead = new HashSet<>();
    Map<String, Long> byReason = new TreeMap<>();
    try (KafkaConsumer<byte[], byte[]> c = consumer(kafka)) {
      readAll(c, topics.inbound(), timeout, r -> {
        inbound[0]++;
        String id = idOf(r);
        inboundIds.add(id);
        coordinatesOf.computeIfAbsent(id, k -> new ArrayList<>())
            .add(DeadLetter.source(r.topic(), r.partition(), r.offset()));
      });
      // A duplicate's outcome (sluice-outcome: duplicate) is not a delivery: its id's first record
      // ends in its own outcome or dead letter.
      readAll(c, topics.outcomes(), timeout, r -> {
        if (HeaderValues.last(r.headers(), HeaderNames.OUTCOME).isEmpty()) {
          HeaderValues.last(r.headers(), HeaderNames.EVENT_ID).ifPresent(delivered::add);
        }
      });
      readAll(c, topics.dlq(), timeout, r -> {
        DeadLetter d = DeadLetter.fromHeaders(r.headers());
        String key = d.eventId() != null ? d.eventId() : d.source();
        if (key != null && dead.add(key)) {
          byReason.merge(d.reason(), 1L, Long::sum);
        }
        // A record dead at the gate for being malformed is known by its inbound coordinates.
        if (d.source() != null && d.source().startsWith(topics.inbound() + "-")) {
          dead.add(d.source());
        }
      });
    }
    List<String> missing = new ArrayList<>();
    long deliveredCount = 0;
    long deadCount = 0;
    for (String id : new TreeSet<>(inboundIds)) {
      if (delivered.contains(id)) {
        deliveredCount++;
      } else if (dead.contains(id)
          || coordinatesOf.get(id).stream().anyMatch(dead::contains)) {
        deadCount++;
      } else {
        missing.add(id);
      }
    }
    return new Report(inbound[0], inboundIds.size(), deliveredCount, deadCount, byReason,
        missing);
  }

  private static String idOf(ConsumerRecord<byte[], byte[]> r) {
    try {
      JsonNode node = Json.mapper().readTree(r.value());
      JsonNode id = node == null ? null : node.get("id");
      if (id != null && id.isTextual() && !id.textValue().isEmpty()) {
        return id.textValue();
      }
    } catch (IOException | RuntimeException e) {
      // falls through: known by its coordinates
    }
    return DeadLetter.source(r.topic(), r.partition(), r.offset());
  }

  private static void readAll(KafkaConsumer<byte[], byte[]> c, String topic, Duration timeout,
      Consumer<ConsumerRecord<byte[], byte[]>> each) {
    List<PartitionInfo> infos = c.partitionsFor(topic, timeout);
    if (infos == null || infos.isEmpty()) {
      throw new IllegalStateException("topic " + topic + " does not exist; run `sluice topics "
          + "create --config FILE` first");
    }
    List<TopicPartition> parts = new ArrayList<>();
    infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
    c.assign(parts);
    c.seekToBeginning(parts);
    Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts, timeout));
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!end.isEmpty()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("could not read " + topic + " to its end within "
            + timeout);
      }
      for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
        each.accept(r);
      }
      end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
    }
    c.unsubscribe();
  }

  private static KafkaConsumer<byte[], byte[]> consumer(KafkaConfig kafka) {
    return new KafkaConsumer<>(kafka.clientProperties(Map.of(
        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-verify-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000)),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
