package io.sluice.gate.it;

import io.sluice.testkit.TestConfigs;
import io.sluice.testkit.KafkaClients;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.Quota;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.gate.Gate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Redis loses everything (FLUSHALL) while paid reservations wait in the ladder, under a running
 * gate: the tenant's next burst must not find a full bucket beside them. Every admission instant
 * of both bursts (admitted now, or paid and due at its not-before) stays within capacity + rate·T.
 * (Before the slot markers, the bucket came back full: ten more admitted at once while twenty
 * paid units of the first burst fell due, 40 in about two seconds from a bucket of 10 at 10/s.)
 */
@ExtendWith(RealServers.class)
class GateRedisWipeIT {

  @Test
  void shouldKeepAdmissionsWithinTheBucketWhenRedisLosesItsDataUnderPaidReservations(KafkaBroker broker)
      throws Exception {
    wipeBetweenTwoBursts(broker, false);
  }

  /**
   * The same loss while no gate runs: Redis then holds no slot marker at all, as on a first use.
   * Kafka remembers that this gate application committed offsets, so the gate starting next marks
   * every slot lost rather than intact. (Marked intact, the second burst found a full bucket.)
   */
  @Test
  void shouldKeepAdmissionsWithinTheBucketWhenRedisLosesItsDataWhileNoGateRuns(KafkaBroker broker)
      throws Exception {
    wipeBetweenTwoBursts(broker, true);
  }

  private static void wipeBetweenTwoBursts(KafkaBroker broker, boolean restartGate) throws Exception {
    String quotas = "{ enterprise: { capacity: 10, refill: 10/s }, pro: { capacity: 10, refill: 10/s }, free: { capacity: 10, refill: 10/s } }";
    // Its own redis-server: FLUSHALL must not touch what other tests keep in the shared one.
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      SluiceConfig config = TestConfigs.of(GateIT.config(quotas, "2s"), broker, redis.uri());
      Topics topics = TestConfigs.createTopics(config, broker, 2);
      List<String> out = new ArrayList<>(topics.delays());
      out.add(topics.ready());
      Map<String, Object> fastCommits = Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
      Gate gate = Gate.start(config, new CountingListener(), fastCommits);
      try (KafkaProducer<byte[], byte[]> p = KafkaClients.producer(broker.bootstrapServers())) {
        int burst = 30;
        for (int i = 0; i < burst; i++) {
          GateIT.send(p, topics, "acme", GateIT.event("first-" + i, "acme", "payments-api", 1));
        }
        p.flush();
        List<ConsumerRecord<byte[], byte[]>> first = KafkaClients.readUntil(broker.bootstrapServers(), out,
            all -> all.size() >= burst, Duration.ofSeconds(60));
        long paid = first.stream().filter(GateIT::paid).count();
        assertTrue(paid >= 15, "the first burst left paid reservations in the ladder: " + paid);

        if (restartGate) {
          gate.close();
        }
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = client.connect()) {
          c.sync().flushall();
        } finally {
          client.shutdown();
        }
        if (restartGate) {
          gate = Gate.start(config, new CountingListener(), fastCommits);
        }
        for (int i = 0; i < burst; i++) {
          GateIT.send(p, topics, "acme", GateIT.event("second-" + i, "acme", "payments-api", 1));
        }
        p.flush();
        List<ConsumerRecord<byte[], byte[]>> all = KafkaClients.readUntil(broker.bootstrapServers(), out,
            records -> records.stream().map(GateIT::idOf).distinct().count() >= 2L * burst,
            Duration.ofSeconds(60));

        List<Long> admitted = new ArrayList<>();
        long admittedSecond = 0;
        for (ConsumerRecord<byte[], byte[]> r : all) {
          if (r.topic().equals(topics.ready()) || GateIT.paid(r)) {
            admitted.add(GateIT.admittedAt(r, topics));
            admittedSecond += GateIT.idOf(r).startsWith("second-") ? 1 : 0;
          }
        }
        System.out.printf("Redis wiped under %d paid reservations%s: %d of the next burst of %d admitted or "
            + "paid, the rest queued unpaid%n", paid, restartGate ? " while no gate ran" : "",
            admittedSecond, burst);
        Quota q = config.quotaOf("payments-api", "acme").orElseThrow();
        GateIT.assertWithinBucket("acme", admitted, q.capacity(), q.refill().perSecond());
      } finally {
        gate.close();
      }
    }
  }
}
