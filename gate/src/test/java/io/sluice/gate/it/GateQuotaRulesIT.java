package io.sluice.gate.it;

import io.sluice.testkit.TestConfigs;
import io.sluice.testkit.KafkaClients;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.Gate;
import java.time.Duration;
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
 * Several rules per event through two real gates, a real broker and a real redis-server: each
 * tenant has a quota toward each of two providers and an overall budget across both; every
 * rule keeps its own bound in every window, and a refused event goes round the ladder unpaid.
 */
@ExtendWith(RealServers.class)
class GateQuotaRulesIT {
  private static final String CONFIG = """
      ladder: [1s, 5s, 30s]
      reservationHorizon: 2s
      tiers: { free: { weight: 1 } }
      defaultTier: free
      providers:
        a-api:
          url: http://localhost:8081/
          rate: 500/s
          quotas: { free: { capacity: 4, refill: 8/s } }
        b-api:
          url: http://localhost:8082/
          rate: 500/s
          quotas: { free: { capacity: 4, refill: 8/s } }
      tenants:
      %s
      gate: { streamThreads: 2 }
      """;

  @Test
  void shouldHoldEveryRuleToItsOwnBoundAcrossTwoGates(KafkaBroker broker, RedisServerProcess redis) throws Exception {
    int tenants = 40;
    StringBuilder list = new StringBuilder();
    for (int t = 0; t < tenants; t++) {
      list.append("  r").append(t).append(": { tier: free, overall: { capacity: 5, refill: 10/s } }\n");
    }
    SluiceConfig config = TestConfigs.of(CONFIG.formatted(list), broker, redis.uri());
    Topics topics = TestConfigs.createTopics(config, broker, 6);
    int perProvider = 20;
    try (Gate one = Gate.start(config, new CountingListener(), Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100));
         Gate two = Gate.start(config, new CountingListener(), Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100));
         KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
      for (int round = 0; round < perProvider; round++) {
        for (int t = 0; t < tenants; t++) {
          for (String provider : new String[] {"a-api", "b-api"}) {
            GateIT.send(p, topics, "r" + t, GateIT.event("r" + t + "-" + provider + "-" + round, "r" + t, provider, 1));
          }
        }
        p.flush();
      }
      int total = tenants * perProvider * 2;
      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      List<ConsumerRecord<byte[], byte[]>> records = KafkaClients.readUntil(broker.bootstrapServers(), out,
          all -> all.stream().map(GateIT::idOf).distinct().count() >= total, Duration.ofSeconds(120));

      Map<String, List<Long>> overall = new HashMap<>();
      Map<String, List<Long>> perRule = new HashMap<>();
      int deferred = 0;
      for (ConsumerRecord<byte[], byte[]> r : records) {
        if (!r.topic().equals(topics.ready())) {
          assertFalse(GateIT.paid(r), "a multi-rule event is never charged ahead");
          deferred++;
          continue;
        }
        String tenant = GateIT.text(r.key());
        String provider = GateIT.text(r.value()).contains("\"provider\":\"a-api\"") ? "a-api" : "b-api";
        overall.computeIfAbsent(tenant, k -> new ArrayList<>()).add(r.timestamp());
        perRule.computeIfAbsent(tenant + "/" + provider, k -> new ArrayList<>()).add(r.timestamp());
      }
      assertEquals(tenants, overall.size(), "every tenant had admissions");
      assertTrue(deferred > 0, "the rules refused some events");
      overall.forEach((tenant, times) -> GateIT.assertWithinBucket(tenant + " overall", times, 5, 10));
      perRule.forEach((rule, times) -> GateIT.assertWithinBucket(rule, times, 4, 8));
    }
  }
}
