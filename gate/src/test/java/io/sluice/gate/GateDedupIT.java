package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.RealServers;
import io.sluice.testkit.TestConfigs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A provider's {@code dedupWindow} on a real broker and redis-server ({@code lua/dedup.lua}),
 * across a gate task closed dirty after it had marked ids in Redis (its transaction aborted, its
 * input read again): every id admitted once, every repeat told {@code duplicate} once. The
 * script alone, and what it costs: {@link DedupScriptIT}.
 */
@ExtendWith(RealServers.class)
class GateDedupIT {
  private static final String CONFIG = """
      ladder: [1s, 5s, 30s]
      reservationHorizon: 2s
      tiers: { free: { weight: 1 } }
      defaultTier: free
      providers:
        hooks:
          url: http://localhost:8081/hooks
          rate: 500/s
          dedupWindow: 10m
          quotas: { free: { capacity: 100000, refill: 100000/s } }
      gate: { streamThreads: 1, leaseTarget: 0ms }
      """;

  @Test
  void shouldAdmitEveryIdOnceAndTellEveryRepeatOnceAcrossATaskClosedDirtyAfterItsMarks(
      KafkaBroker broker, RedisServerProcess redis) throws Exception {
    SluiceConfig config = TestConfigs.of(CONFIG, broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 1);
    int ids = 1000;
    try (KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      // Each id twice, the repeat 1..60 ids later (a producer's retry, an outbox's replay).
      List<int[]> order = new ArrayList<>();
      for (int i = 0; i < ids; i++) {
        order.add(new int[] {2 * i, i});
        order.add(new int[] {2 * (i + 1 + (i * 7919) % 60) + 1, i});
      }
      order.sort(Comparator.comparingInt(a -> a[0]));
      order.forEach(a -> send(p, topics, a[1]));
      p.flush();
    }
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger injected = new AtomicInteger();
    // The 300th admission fails: the task is closed dirty with hundreds of ids marked in Redis by
    // records whose outputs are aborted; they are read again from the last commit. The failure is
    // told before send returns, so no commit can slip in without the record (FailOneSend).
    DefaultKafkaClientSupplier clients = GateTaskRevivalIT.failingOnce(topics.ready(), 300, sent, injected, true);
    try (Gate gate = Gate.start(new LiveConfig(config), new GateListener() {},
        Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100), clients)) {
      // Every inbound record ends in one output (ready, an outcome, a dead letter, a delay step).
      List<String> outputs = new ArrayList<>(topics.delays());
      outputs.addAll(List.of(topics.ready(), topics.outcomes(), topics.dlq()));
      // Read until every record's output is in, or 90 s: then what is there says what is missing.
      List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
      try (KafkaConsumer<byte[], byte[]> c = KafkaClients.reader(broker.bootstrapServers(), outputs)) {
        long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (out.size() < 2 * ids && System.nanoTime() < until) {
          c.poll(Duration.ofMillis(200)).forEach(out::add);
        }
      }
      assertEquals(1, injected.get(), "the produce failure was injected");
      Map<String, Integer> calls = new TreeMap<>();
      Map<String, Integer> duplicates = new TreeMap<>();
      for (ConsumerRecord<byte[], byte[]> r : out) {
        if (r.topic().equals(topics.ready())) {
          calls.merge(idOf(r), 1, Integer::sum);
        } else if (r.topic().equals(topics.outcomes())) {
          assertEquals("duplicate", HeaderValues.last(r.headers(), HeaderNames.OUTCOME).orElse(null));
          duplicates.merge(HeaderValues.last(r.headers(), HeaderNames.EVENT_ID).orElseThrow(), 1, Integer::sum);
        } else {
          throw new AssertionError(idOf(r) + " went to " + r.topic() + ": "
              + HeaderValues.last(r.headers(), HeaderNames.REASON).orElse("?") + ", "
              + HeaderValues.last(r.headers(), HeaderNames.DETAIL).orElse(""));
        }
      }
      List<String> missing = new ArrayList<>();
      for (int i = 0; i < ids; i++) {
        if (!calls.containsKey("e" + i) || !duplicates.containsKey("e" + i)) {
          missing.add("e" + i + (calls.containsKey("e" + i) ? " (not told)" : " (not admitted)"));
        }
      }
      assertEquals(List.of(), missing, out.size() + " outputs");
      assertEquals(ids, calls.size(), "every id admitted");
      assertTrue(calls.values().stream().allMatch(n -> n == 1), "an id admitted twice: " + calls);
      assertEquals(ids, duplicates.size(), "every repeat told");
      assertTrue(duplicates.values().stream().allMatch(n -> n == 1), "a repeat told twice: " + duplicates);
    }
  }

  private static void send(KafkaProducer<byte[], byte[]> p, Topics topics, int i) {
    String tenant = "tenant-" + (i % 50);
    String json = "{\"id\":\"e" + i + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"hooks\"}";
    p.send(new ProducerRecord<>(topics.inbound(), bytes(tenant), bytes(json)));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String idOf(ConsumerRecord<byte[], byte[]> r) {
    String v = new String(r.value(), StandardCharsets.UTF_8);
    int i = v.indexOf("\"id\":\"") + 6;
    return v.substring(i, v.indexOf('"', i));
  }
}
