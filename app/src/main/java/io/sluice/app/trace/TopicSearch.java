package io.sluice.app.trace;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.config.KafkaConfig;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Finds one event's records in Sluice's topics: from {@code since} ago (each partition sought by
 * time) to each partition's end when the search began, in no consumer group. Bounded, because a
 * topic holds days of every tenant's events: at most {@code maxRecords} read in all and
 * {@code timeout} spent, its metadata calls included (each waits only what is left of it); a
 * search that hit a bound says so, and what it found is still shown.
 *
 * <p>A record is the event's when its {@code sluice-event-id} header names it, or its value is
 * JSON whose {@code id} is it (a cheap byte search for the quoted id first, so most records are
 * never parsed). Records a producer wrote that are not JSON cannot be found by id.
 */
public final class TopicSearch {
  /** How far back, how many records, how long. */
  public record Bounds(Duration since, long maxRecords, Duration timeout) {}

  /** What was found, how many records were read, and whether a bound stopped the search. */
  public record Found(List<Journey.Sighting> sightings, long recordsRead, boolean bounded) {}

  private TopicSearch() {}

  public static Found find(KafkaConfig kafka, List<String> topics, String id, Bounds bounds,
      long nowMillis) {
    byte[] quoted = ("\"" + id + "\"").getBytes(StandardCharsets.UTF_8);
    List<Journey.Sighting> found = new ArrayList<>();
    long read = 0;
    boolean bounded = false;
    long deadline = System.nanoTime() + bounds.timeout().toNanos();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(kafka.clientProperties(Map.of(
        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-trace-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000)),
        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      for (String topic : topics) {
        if (left(deadline).isZero()) {
          bounded = true;
          break;
        }
        List<PartitionInfo> infos = c.partitionsFor(topic, left(deadline));
        if (infos == null || infos.isEmpty()) {
          continue; // a topic not created (an optional one): nothing of the event there
        }
        List<TopicPartition> parts = new ArrayList<>();
        infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
        c.assign(parts);
        Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts, left(deadline)));
        Map<TopicPartition, Long> from = new HashMap<>();
        parts.forEach(p -> from.put(p, nowMillis - bounds.since().toMillis()));
        Map<TopicPartition, OffsetAndTimestamp> start = c.offsetsForTimes(from, left(deadline));
        for (TopicPartition p : parts) {
          OffsetAndTimestamp o = start.get(p);
          if (o == null) {
            end.remove(p); // nothing that recent
          } else {
            c.seek(p, o.offset());
          }
        }
        end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
        while (!end.isEmpty()) {
          if (read >= bounds.maxRecords() || System.nanoTime() - deadline > 0) {
            bounded = true;
            break;
          }
          for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
            read++;
            if (matches(r, id, quoted)) {
              found.add(sighting(r));
            }
          }
          end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
        }
        c.unsubscribe();
        if (bounded) {
          break;
        }
      }
    }
    return new Found(found, read, bounded);
  }

  /** What is left of the search's time, never negative: each metadata call waits no longer. */
  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }

  static boolean matches(ConsumerRecord<byte[], byte[]> r, String id, byte[] quoted) {
    Header named = r.headers().lastHeader(HeaderNames.EVENT_ID);
    if (named != null && named.value() != null) {
      return id.equals(new String(named.value(), StandardCharsets.UTF_8));
    }
    if (r.value() == null || indexOf(r.value(), quoted) < 0) {
      return false;
    }
    try {
      JsonNode n = Json.mapper().readTree(r.value());
      return n != null && n.hasNonNull("id") && id.equals(n.get("id").asText());
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static Journey.Sighting sighting(ConsumerRecord<byte[], byte[]> r) {
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header h : r.headers()) {
      headers.put(h.key(), h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
    }
    return new Journey.Sighting(r.topic(), r.partition(), r.offset(), r.timestamp(), headers,
        r.value());
  }

  private static int indexOf(byte[] in, byte[] what) {
    outer:
    for (int i = 0; i + what.length <= in.length; i++) {
      for (int j = 0; j < what.length; j++) {
        if (in[i + j] != what[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
