package io.sluice.gate.it;

import io.sluice.testkit.TestConfigs;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.Gate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two gate instances of one application against a real broker: each knows there are two, so
 * under {@code onRedisDown: local} each bucket runs at half the quota. (Without
 * {@code application.server} Streams listed no instances and each took the whole quota: a tenant
 * of capacity 10 had 10 admitted at once during an outage, and the fleet up to N times that.)
 */
@ExtendWith(RealServers.class)
class GateLocalShareIT {

  @Test
  void shouldGiveEachOfTwoGateInstancesHalfOfEveryQuotaWhileRedisIsDown(KafkaBroker broker) throws Exception {
    String quotas = "{ enterprise: { capacity: 10, refill: 1/s }, pro: { capacity: 10, refill: 1/s }, free: { capacity: 10, refill: 1/s } }";
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      SluiceConfig config = TestConfigs.of(
          GateIT.config(quotas, "60s").replace("gate: { maxPayloadBytes: 2048, streamThreads: 2 }",
              "gate: { maxLease: 0, maxPayloadBytes: 2048, streamThreads: 1 }"),
          broker, redis.uri());
      Topics topics = TestConfigs.createTopics(config, broker, 2);
      Map<String, Object> fast = Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
      CountingListener counts = new CountingListener();
      try (Gate a = Gate.start(config, counts, fast);
           Gate b = Gate.start(config, counts, fast);
           KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
        Await.until("both instances running with a share of 1/2", Duration.ofSeconds(90),
            () -> a.streams().state() + " " + a.localShare() + ", " + b.streams().state() + " " + b.localShare(),
            seen -> running(a) && running(b) && a.localShare() == 0.5 && b.localShare() == 0.5);

        // Redis answers for the tenant once: its instance knows the bucket's level. (A bucket an
        // instance never heard of starts a full reach in debt: it may be deep in reservations.)
        GateIT.send(p, topics, "acme", GateIT.event("seen", "acme", "local-api", 1));
        p.flush();
        KafkaClients.readUntil(broker.bootstrapServers(), List.of(topics.ready()),
            all -> all.stream().anyMatch(r -> GateIT.idOf(r).equals("seen")), Duration.ofSeconds(60));
        // A tenant's events all go to one instance; its local bucket there holds half the quota.
        long outageStarted = System.nanoTime();
        redis.stop();
        int burst = 20;
        for (int i = 0; i < burst; i++) {
          GateIT.send(p, topics, "acme", GateIT.event("burst-" + i, "acme", "local-api", 1));
        }
        p.flush();
        List<String> out = new ArrayList<>(topics.delays());
        out.add(topics.ready());
        List<ConsumerRecord<byte[], byte[]>> decided = KafkaClients.readUntil(broker.bootstrapServers(), out,
            all -> all.stream().filter(r -> GateIT.idOf(r).startsWith("burst-")).count() >= burst,
            Duration.ofSeconds(60));
        double decidedWithinSeconds = (System.nanoTime() - outageStarted) / 1e9;
        long admitted = decided.stream().filter(r -> r.topic().equals(topics.ready()))
            .filter(r -> GateIT.idOf(r).startsWith("burst-")).count();
        System.out.printf("two gates, Redis down, local: shares %.2f and %.2f; %d of a burst of %d "
            + "admitted at once from a bucket of 10 at 1/s%n", a.localShare(), b.localShare(), admitted, burst);
        assertTrue(admitted >= 4, "the local bucket starts from Redis's level (9 of 10, refilled"
            + " since) at half the capacity: " + admitted);
        // The local bucket refills at half of 1/s while the burst is decided. On a loaded machine
        // noticing the outage and deciding 20 events can take seconds, so the bound is the half
        // capacity plus what half the refill can have added since Redis stopped (plus one unit for
        // a refill already part-way when the outage began); a whole quota (10) still fails it.
        long bound = 5 + (long) Math.floor(0.5 * decidedWithinSeconds) + 1;
        assertTrue(admitted <= bound, String.format("half of capacity 10, plus the half refill of "
            + "%.1f s while the burst was decided: at most %d, admitted %d", decidedWithinSeconds,
            bound, admitted));
        assertEquals(0.5, a.localShare());
      }
    }
  }

  private static boolean running(Gate gate) {
    return gate.streams().state() == KafkaStreams.State.RUNNING;
  }
}
