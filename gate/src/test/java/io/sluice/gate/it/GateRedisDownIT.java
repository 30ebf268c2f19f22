package io.sluice.gate.it;

import io.sluice.testkit.TestConfigs;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.Gate;
import io.sluice.gate.limiter.BucketKey;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Stops and restarts a real redis-server under a running gate: each provider's onRedisDown policy
 * decides while it is down, and decisions go back to Redis once it answers again.
 */
@ExtendWith(RealServers.class)
class GateRedisDownIT {

  /**
   * Every tier at one quota, and no leases: a unit leased before the outage would (rightly) admit
   * an event without Redis, and these tests are about the decisions that need Redis (one call per
   * event, so each answer is seen).
   */
  private static SluiceConfig withoutLeases(int capacity, String refill, KafkaBroker broker, RedisServerProcess redis) {
    String quota = "{ capacity: %d, refill: %s }".formatted(capacity, refill);
    String quotas = "{ enterprise: %s, pro: %s, free: %s }".formatted(quota, quota, quota);
    return TestConfigs.of(
        GateIT.config(quotas, "10s").replace("gate: { maxPayloadBytes: 2048,", "gate: { maxLease: 0, maxPayloadBytes: 2048,"),
        broker, redis.uri());
  }

  @Test
  void shouldFollowEachProvidersPolicyWhileRedisIsDownAndRecoverWhenItIsBack(KafkaBroker broker) throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      SluiceConfig config = withoutLeases(100, "100/s", broker, redis);
      Topics topics = TestConfigs.createTopics(config, broker, 2);
      CountingListener counts = new CountingListener();
      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      try (Gate gate = Gate.start(config, counts, Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100));
           KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
        GateIT.send(p, topics, "acme", GateIT.event("before", "acme", "payments-api", 1));
        // Redis answers for the local-api bucket once, so the gate knows its level when Redis goes
        // (a bucket never heard of starts a full reach in debt: LocalBucketsTest).
        GateIT.send(p, topics, "acme", GateIT.event("before-local", "acme", "local-api", 1));
        p.flush();
        KafkaClients.readUntil(broker.bootstrapServers(), List.of(topics.ready()), all -> all.size() >= 2, Duration.ofSeconds(60));

        redis.stop();
        GateIT.send(p, topics, "acme", GateIT.event("closed-1", "acme", "payments-api", 1));
        GateIT.send(p, topics, "acme", GateIT.event("local-1", "acme", "local-api", 1));
        GateIT.send(p, topics, "acme", GateIT.event("local-2", "acme", "local-api", 1));
        p.flush();
        // The two events from before are read too: wait for the three sent during the outage by id.
        List<String> sentDuring = List.of("closed-1", "local-1", "local-2");
        List<ConsumerRecord<byte[], byte[]>> during = KafkaClients.readUntil(broker.bootstrapServers(), out,
            all -> sentDuring.stream().allMatch(id -> all.stream().anyMatch(r -> GateIT.idOf(r).equals(id))),
            Duration.ofSeconds(60));
        ConsumerRecord<byte[], byte[]> held = during.stream()
            .filter(r -> GateIT.idOf(r).equals("closed-1")).findFirst().orElseThrow();
        assertEquals(topics.delay(Duration.ofSeconds(1)), held.topic(), "fail_closed holds it back one step");
        assertEquals("redis_unavailable", HeaderValues.last(held.headers(), HeaderNames.REASON).orElseThrow());
        assertEquals(topics.regate(), HeaderValues.last(held.headers(), HeaderNames.RETURN_TO).orElseThrow());
        assertEquals(2, during.stream().filter(r -> r.topic().equals(topics.ready()))
            .filter(r -> GateIT.idOf(r).startsWith("local-")).count(), "local admits within its local bucket");
        assertTrue(counts.fallbacks.get() >= 3);

        redis.restart();
        // Once Redis answers, decisions are made there again: the bucket key appears in Redis.
        BucketKey key = new BucketKey("payments-api", "acme");
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = client.connect()) {
          AtomicInteger n = new AtomicInteger();
          // Observed: whether the bucket key exists; while it does not, one more event goes through.
          Await.until("decisions to go back to Redis", Duration.ofSeconds(60), () -> {
            long exists = c.sync().exists(key.redisKey());
            if (exists == 0) {
              GateIT.send(p, topics, "acme", GateIT.event("after-" + n.getAndIncrement(), "acme", "payments-api", 1));
              p.flush();
              KafkaClients.readUntil(broker.bootstrapServers(), out,
                  all -> all.stream().anyMatch(r -> GateIT.idOf(r).startsWith("after-")), Duration.ofSeconds(30));
            }
            return exists;
          }, exists -> exists > 0);
        } finally {
          client.shutdown();
        }
      }
    }
  }

  @Test
  void shouldStartTheLocalBucketFromRedisLastAnswerSoThatTimeAlreadySoldIsNotSoldAgain(KafkaBroker broker)
      throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      SluiceConfig config = withoutLeases(2, "1/s", broker, redis);
      Topics topics = TestConfigs.createTopics(config, broker, 2);
      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      try (Gate gate = Gate.start(config, new CountingListener(), Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100));
           KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
        // Two go now; three are paid reservations, due 1, 2 and 3 s on.
        for (int i = 0; i < 5; i++) {
          GateIT.send(p, topics, "acme", GateIT.event("sold-" + i, "acme", "local-api", 1));
        }
        p.flush();
        List<ConsumerRecord<byte[], byte[]>> before = KafkaClients.readUntil(broker.bootstrapServers(), out,
            all -> all.size() >= 5, Duration.ofSeconds(60));
        long lastSold = before.stream().filter(r -> !r.topic().equals(topics.ready()))
            .mapToLong(r -> Long.parseLong(HeaderValues.last(r.headers(), HeaderNames.NOT_BEFORE).orElseThrow()))
            .max().orElseThrow();
        assertEquals(2, before.stream().filter(r -> r.topic().equals(topics.ready())).count());

        redis.kill();
        GateIT.send(p, topics, "acme", GateIT.event("during", "acme", "local-api", 1));
        p.flush();
        ConsumerRecord<byte[], byte[]> during = KafkaClients.readUntil(broker.bootstrapServers(), out,
                all -> all.stream().anyMatch(r -> GateIT.idOf(r).equals("during")), Duration.ofSeconds(60))
            .stream().filter(r -> GateIT.idOf(r).equals("during")).findFirst().orElseThrow();
        assertTrue(!during.topic().equals(topics.ready()),
            "a local bucket started full would admit it at once, a fourth unit within the first seconds");
        long notBefore = Long.parseLong(HeaderValues.last(during.headers(), HeaderNames.NOT_BEFORE).orElseThrow());
        // Its unit comes after the last one Redis sold (one unit a second later; 50 ms for the
        // two clocks' reading of the same instant).
        assertTrue(notBefore >= lastSold + 950,
            "reserved " + (notBefore - lastSold) + " ms after the last unit Redis sold");
      }
    }
  }
}
