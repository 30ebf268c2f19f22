package io.sluice.gate.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.RealServers;
import io.sluice.testkit.TestConfigs;
import io.sluice.gate.Gate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Delivery at a time through a real gate and a real relay, on a KRaft broker and redis-server:
 * every event admitted to {@code ready} once, never read there before its time (this host's
 * clock is Redis's), at the records per event {@code DelayLadder.recordsFor} counts; beyond
 * {@code maxDelay}, dead-lettered.
 */
@ExtendWith(RealServers.class)
class GateScheduleIT {
  private static final Map<String, Object> FAST_COMMITS = Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
  private static final String CONFIG = """
      ladder: [1s, 5s, 30s]
      tiers: { free: { weight: 1 } }
      defaultTier: free
      providers:
        hooks:
          url: http://localhost:8081/hooks
          rate: 500/s
          maxDelay: 1m
          quotas: { free: { capacity: 1000, refill: 1000/s } }
      """;

  @Test
  void shouldAdmitEveryScheduledEventOnceAndNeverBeforeItsTimeOnRedissClock(
      KafkaBroker broker, RedisServerProcess redis) throws Exception {
    SluiceConfig config = TestConfigs.of(CONFIG, broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 2);
    int each = 20;
    try (Gate gate = Gate.start(config, new CountingListener(), FAST_COMMITS);
         RelayService relay = RelayService.start(config, RelayListener.NONE);
         KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      Instant at = Instant.now().plusSeconds(7);
      for (int i = 0; i < each; i++) {
        String tenant = "t" + (i % 4);
        GateIT.send(p, topics, tenant, "{\"id\":\"at" + i + "\",\"tenant\":\"" + tenant
            + "\",\"provider\":\"hooks\",\"deliverAt\":\"" + at + "\"}");
        GateIT.send(p, topics, tenant, "{\"id\":\"in" + i + "\",\"tenant\":\"" + tenant
            + "\",\"provider\":\"hooks\",\"delay\":\"" + (2 + i % 5) + "s\"}");
      }
      GateIT.send(p, topics, "t0", "{\"id\":\"far\",\"tenant\":\"t0\",\"provider\":\"hooks\",\"delay\":\"61s\"}");
      p.flush();

      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      out.add(topics.regate());
      out.add(topics.dlq());
      // When each record was first read, on this host's clock: Redis's too (one machine), so a
      // ready record read before its time was admitted before it. (A ready record's timestamp is
      // the bucket's clock at admission, a lower bound of it when the tenant holds a lease.)
      List<Long> readAt = new ArrayList<>();
      List<ConsumerRecord<byte[], byte[]>> records = KafkaClients.readUntil(broker.bootstrapServers(), out,
          all -> {
            while (readAt.size() < all.size()) {
              readAt.add(System.currentTimeMillis());
            }
            return all.stream().filter(r -> r.topic().equals(topics.ready())).count() >= 2L * each
                && all.stream().anyMatch(r -> r.topic().equals(topics.dlq()));
          },
          Duration.ofSeconds(60));

      Map<String, Long> due = new HashMap<>();
      Map<String, Integer> delayRecords = new HashMap<>();
      Map<String, Integer> admissions = new HashMap<>();
      int regated = 0;
      for (ConsumerRecord<byte[], byte[]> r : records) {
        String id = GateIT.idOf(r);
        if (r.topic().startsWith(topics.prefix() + "delay.")) {
          delayRecords.merge(id, 1, Integer::sum);
          due.putIfAbsent(id, HeaderValues.lastLong(r.headers(), HeaderNames.NOT_BEFORE).orElseThrow());
          assertEquals("scheduled", HeaderValues.last(r.headers(), HeaderNames.REASON).orElse(null));
        } else if (r.topic().equals(topics.regate())) {
          regated++;
        } else if (r.topic().equals(topics.ready())) {
          admissions.merge(id, 1, Integer::sum);
        }
      }
      for (int i = 0; i < each; i++) {
        assertEquals(at.toEpochMilli(), due.get("at" + i), "deliverAt as the gate stamped it");
      }
      long latest = 0;
      for (int i = 0; i < records.size(); i++) {
        ConsumerRecord<byte[], byte[]> r = records.get(i);
        if (r.topic().equals(topics.ready())) {
          String id = GateIT.idOf(r);
          long late = readAt.get(i) - due.get(id);
          assertTrue(late >= 0, id + " read on ready " + -late + " ms before its time");
          latest = Math.max(latest, late);
        }
      }
      admissions.forEach((id, n) -> assertEquals(1, n, id + " admitted once"));
      assertEquals(2 * each, admissions.size());
      assertEquals(2 * each, regated, "one return to the gate per scheduled event");
      // 7 s: 5 s + the last 2 s in the 1 s step; 2..6 s: the 1 s or 5 s step, held to its time.
      long ladderRecords = delayRecords.values().stream().mapToInt(Integer::intValue).sum();
      System.out.printf("scheduled: %d events, %d delay records, %d regate, %d ready: %.2f records per event;"
          + " read on ready at most %d ms after its time%n", 2 * each, ladderRecords, regated, admissions.size(),
          (ladderRecords + regated + admissions.size()) / (2.0 * each), latest);
      ConsumerRecord<byte[], byte[]> dead = records.stream().filter(r -> r.topic().equals(topics.dlq())).findFirst().orElseThrow();
      assertEquals("far", GateIT.idOf(dead));
      assertEquals("beyond_max_delay", HeaderValues.last(dead.headers(), HeaderNames.REASON).orElse(null));
    }
  }
}
