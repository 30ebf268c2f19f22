package io.sluice.topology.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ScriptOutputType;
import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisAccess;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.RealServers;
import io.sluice.testkit.TestConfigs;
import io.sluice.topology.limiter.BucketKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A provider's {@code dedupWindow} on a real broker and redis-server ({@code lua/dedup.lua}),
 * across a gate task closed dirty after it had marked ids in Redis (its transaction aborted, its
 * input read again): every id admitted once, every repeat told {@code duplicate} once. And what
 * the window costs per event.
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
    // records whose outputs are aborted; they are read again from the last commit.
    DefaultKafkaClientSupplier clients = GateTaskRevivalIT.failingOnce(topics.ready(), 300, sent, injected);
    try (Gate gate = Gate.start(new LiveConfig(config), new GateListener() {},
        Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100), clients)) {
      List<ConsumerRecord<byte[], byte[]>> out = KafkaClients.readUntil(broker.bootstrapServers(),
          List.of(topics.ready(), topics.outcomes()),
          all -> all.stream().filter(r -> r.topic().equals(topics.ready())).map(GateDedupIT::idOf)
              .distinct().count() >= ids
              && all.stream().filter(r -> r.topic().equals(topics.outcomes())).count() >= ids,
          Duration.ofSeconds(90));
      assertEquals(1, injected.get(), "the produce failure was injected");
      Map<String, Integer> calls = new TreeMap<>();
      Map<String, Integer> duplicates = new TreeMap<>();
      for (ConsumerRecord<byte[], byte[]> r : out) {
        if (r.topic().equals(topics.ready())) {
          calls.merge(idOf(r), 1, Integer::sum);
        } else {
          assertEquals("duplicate", HeaderValues.last(r.headers(), HeaderNames.OUTCOME).orElse(null));
          duplicates.merge(HeaderValues.last(r.headers(), HeaderNames.EVENT_ID).orElseThrow(), 1, Integer::sum);
        }
      }
      assertEquals(ids, calls.size(), "every id admitted");
      assertTrue(calls.values().stream().allMatch(n -> n == 1), "an id admitted twice: " + calls);
      assertEquals(ids, duplicates.size(), "every repeat told");
      assertTrue(duplicates.values().stream().allMatch(n -> n == 1), "a repeat told twice: " + duplicates);
    }
  }

  /** Prints what the window costs an event in Redis: a round trip, the script's time, a key's memory. */
  @Test
  void shouldKeepOneKeyPerIdForTheWindowAndSayWhatItCosts(KafkaBroker broker, RedisServerProcess redis)
      throws Exception {
    SluiceConfig config = TestConfigs.of(CONFIG, broker, redis.uri());
    try (RedisAccess access = RedisAccess.open(config.redis(), "dedup-cost")) {
      RedisSeenIds seen = new RedisSeenIds(access.commands(), access.circuit(), Duration.ofSeconds(2));
      Duration window = Duration.ofMinutes(10);
      String mark = new DedupMark("sluice.inbound-11@123456789", 1_795_938_717_059L, DedupMark.ACCEPTED).encoded();
      long before = usedMemory(access);
      int n = 20_000;
      long start = System.nanoTime();
      for (int i = 0; i < n; i++) {
        String key = new BucketKey("hooks", "tenant-" + (i % 100)).seenKey("order-" + i + "-2f1c9e0a");
        assertEquals(mark, seen.firstMark(key, mark, window));
      }
      double micros = (System.nanoTime() - start) / 1000.0 / n;
      long perKey = (usedMemory(access) - before) / n;
      String key = new BucketKey("hooks", "tenant-0").seenKey("order-0-2f1c9e0a");
      long ttl = (Long) access.commands().eval("return redis.call('PTTL', KEYS[1])", ScriptOutputType.INTEGER,
          key).get(2, TimeUnit.SECONDS);
      String stats = (String) access.commands().eval("return redis.call('INFO', 'commandstats')",
          ScriptOutputType.VALUE).get(2, TimeUnit.SECONDS);
      System.out.printf("dedup: %.1f us per check (round trip, one connection), %d bytes of Redis memory per id;"
          + " %s%n", micros, perKey, stats.lines().filter(l -> l.startsWith("cmdstat_evalsha")).findFirst().orElse(""));
      assertTrue(ttl > 0 && ttl <= window.toMillis(), "each id expires with its window: " + ttl);
      assertNull(DedupMark.decoded("not a mark"));
    }
  }

  private static long usedMemory(RedisAccess access) throws Exception {
    String info = (String) access.commands().eval("return redis.call('INFO', 'memory')", ScriptOutputType.VALUE)
        .get(2, TimeUnit.SECONDS);
    return info.lines().filter(l -> l.startsWith("used_memory:")).map(l -> Long.parseLong(l.substring(12).trim()))
        .findFirst().orElseThrow();
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
