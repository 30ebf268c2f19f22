package io.sluice.app.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.CliRun;
import io.sluice.embedded.KafkaBroker;
import io.sluice.schemas.serde.Json;
import io.sluice.testkit.RealServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice simulate --from-topic} on a real broker: a tenant's events spread over two
 * partitions of its own inbound topic, with records before {@code --from} and after {@code --to}
 * around them, replayed through the simulation. The tenant's quota (capacity 1, 10/s) under its
 * 20/s makes each event's lateness depend on the order it is read in, so the numbers say the
 * partitions were merged by time and the range kept.
 */
@ExtendWith(RealServers.class)
class SimulateFromTopicIT {
  private static final long T0 = 1_790_000_000_000L;

  @TempDir
  Path dir;

  @Test
  @DisplayName("20 events at 20/s over two partitions, a 10/s quota: all 20 read in time order, none outside the range")
  void shouldReplayTheRangeMergedByTime(KafkaBroker kafka) throws Exception {
    Path config = withEvents(kafka);
    Path json = dir.resolve("report.json");
    CliRun run = CliRun.of("simulate", "--config", config.toString(), "--from-topic",
        "--from", Instant.ofEpochMilli(T0).toString(), "--to", Instant.ofEpochMilli(T0 + 1000).toString(),
        "--json", json.toString());

    assertEquals(0, run.exitCode(), run.output());
    JsonNode a = Json.mapper().readTree(Files.readString(json)).path("runs").path(0).path("tenants").path("a");
    assertEquals(20, a.path("calls").asLong(), run.output());
    // Event k arrives at 50k ms and its unit falls due at 100k ms (one a 100 ms after the first):
    // 50k ms late, the last (k = 19) 950 ms. Read partition by partition, the second partition's
    // events would arrive "now", after the first's, and count late from there instead.
    assertEquals(950, a.path("latenessMillis").path("max").asLong(), a.toString());
    assertEquals(450, a.path("latenessMillis").path("p50").asLong(), "the 10th of 20, k = 9: 450 ms; " + a);
    assertTrue(run.out().startsWith("20 lines read in"), run.output());
  }

  @Test
  @DisplayName("--max-lines 5 reads five records of the range and says a bound stopped the read")
  void shouldStopAtItsBound(KafkaBroker kafka) throws Exception {
    Path config = withEvents(kafka);
    CliRun run = CliRun.of("simulate", "--config", config.toString(), "--from-topic",
        "--bootstrap", kafka.bootstrapServers(), "--max-lines", "5",
        "--from", Instant.ofEpochMilli(T0).toString(), "--to", Instant.ofEpochMilli(T0 + 1000).toString());

    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.out().startsWith("5 lines read (a bound stopped the read)"), run.output());
  }

  @Test
  @DisplayName("a topic that does not exist is said, exit 2")
  void shouldSayATopicIsMissing(KafkaBroker kafka) throws Exception {
    Path config = config(kafka, "sim-missing-" + UUID.randomUUID().toString().substring(0, 8) + ".");
    CliRun run = CliRun.of("simulate", "--config", config.toString(), "--from-topic", "--stall-seconds", "5",
        "--from", Instant.ofEpochMilli(T0).toString(), "--to", Instant.ofEpochMilli(T0 + 1000).toString());
    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.err().contains("does not exist"), run.output());
  }

  /** A configuration of its own topics, its inbound topic holding {@link #produce}'s records. */
  private Path withEvents(KafkaBroker kafka) throws Exception {
    String prefix = "sim-" + UUID.randomUUID().toString().substring(0, 8) + ".";
    Path config = config(kafka, prefix);
    produce(kafka, prefix + "inbound");
    return config;
  }

  private Path config(KafkaBroker kafka, String prefix) throws Exception {
    Path file = dir.resolve(prefix + "yaml");
    Files.writeString(file, """
        kafka: { bootstrap: "%s", topicPrefix: "%s" }
        redis: { uri: "redis://127.0.0.1:1" }
        ladder: [1s, 5s]
        maxAttempts: 5
        tiers: { free: { weight: 1 } }
        defaultTier: free
        providers:
          p:
            url: "http://127.0.0.1:9/"
            rate: 1000/s
            quotas: { free: { capacity: 1, refill: 10/s } }
        gate: { applicationId: "%sgate" }
        dispatcher: { groupId: "%sdispatcher" }
        """.formatted(kafka.bootstrapServers(), prefix, prefix, prefix));
    return file;
  }

  /**
   * Event k (0..19) at T0 + 50k ms, even k to partition 0 and odd to 1; one record a second
   * before T0 and one at T0 + 1 s (the range's end) in each partition, outside the range.
   */
  private static void produce(KafkaBroker kafka, String topic) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
    }
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int part = 0; part < 2; part++) {
        p.send(record(topic, part, T0 - 1000, "before-" + part));
      }
      for (int k = 0; k < 20; k++) {
        p.send(record(topic, k % 2, T0 + 50L * k, "e" + k));
      }
      for (int part = 0; part < 2; part++) {
        p.send(record(topic, part, T0 + 1000, "after-" + part));
      }
      p.flush();
    }
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, int partition, long at, String id) {
    String value = "{\"id\": \"" + id + "\", \"tenant\": \"a\", \"provider\": \"p\", \"payload\": {}}";
    return new ProducerRecord<>(topic, partition, at, "a".getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8));
  }
}
