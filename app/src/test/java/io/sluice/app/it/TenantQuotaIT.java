package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.CliRun;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import io.sluice.testkit.KafkaClients;
import io.sluice.testkit.RealServers;
import io.sluice.gate.Gate;
import io.sluice.gate.GateListener;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice tenants set} raising a tenant's quota while its events pour in: the running gate
 * admits it at the new rate within 5 s, without a restart (the registry's change stream, polled
 * every second, {@code TenantWatcher}); {@code sluice status --tenant} shows the new bucket and
 * where it comes from. The tenant has a full reservation horizon (30 s) sold at the old rate when
 * its quota is raised: those reservations keep their times as an old line at 5/s, and the new
 * rate sells 20 - 5 = 15/s beside them at once (token_bucket.lua's "A change of rate"). Repaid
 * first at the new rate instead, the 150 units sold would hold the new rate back for 7.5 s.
 */
@ExtendWith(RealServers.class)
class TenantQuotaIT {
  /** Events offered per second: far above both quotas. */
  private static final int LOAD_PER_SECOND = 100;
  @TempDir Path dir;

  @Test
  @DisplayName("a quota raised with `tenants set` under load: the admitted rate follows within 5 s")
  void aQuotaRaisedUnderLoadIsFollowedWithinFiveSeconds(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String provider = "quota-" + unique;
    String tenant = "acme-" + unique;
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, """
        kafka: { bootstrap: "%s", topicPrefix: "q%s." }
        redis: { uri: "%s" }
        ladder: [1s, 5s]
        reservationHorizon: 30s
        tiers: { free: { weight: 1 } }
        defaultTier: free
        providers:
          %s:
            url: http://127.0.0.1:1/
            rate: 500/s
            quotas: { free: { capacity: 2, refill: 5/s } }
        gate: { applicationId: "q%s-gate" }
        """.formatted(kafka.bootstrapServers(), unique, redis.uri(), provider, unique));
    SluiceConfig config = ConfigLoader.load(file, Map.of());
    Topics topics = Pipeline.createTopics(config, kafka, 1);
    List<Long> admitted = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean stop = new AtomicBoolean();
    try (Gate gate = Gate.start(config, new GateListener() { },
            Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100));
        RelayService relay = RelayService.start(config, RelayListener.NONE);
        KafkaProducer<byte[], byte[]> producer = Pipeline.producer(kafka);
        KafkaConsumer<byte[], byte[]> ready = KafkaClients.reader(kafka.bootstrapServers(),
            List.of(topics.ready()))) {
      byte[] key = tenant.getBytes(StandardCharsets.UTF_8);
      Thread load = new Thread(() -> {
        for (int i = 0; !stop.get(); i++) {
          String json = "{\"id\":\"q" + i + "\",\"tenant\":\"" + tenant + "\",\"provider\":\""
              + provider + "\"}";
          producer.send(new ProducerRecord<>(topics.inbound(), key, json.getBytes(StandardCharsets.UTF_8)));
          try {
            Thread.sleep(1000 / LOAD_PER_SECOND);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "tenant-quota-load");
      load.start();
      try {
        // The gate runs and admits at the file's quota (2 + 5/s) for a second.
        long started = System.nanoTime();
        Await.untilRead("a second of admissions at the file's quota", Duration.ofSeconds(60),
            () -> read(ready, admitted),
            n -> n > 0 && admitted.get(n - 1) - admitted.get(0) >= 1_000);
        long baseline = System.nanoTime();
        CliRun set = CliRun.of("tenants", "set", tenant, "--quota", provider + "=10,20/s",
            "--config", file.toString());
        long setAt = System.currentTimeMillis();
        assertEquals(0, set.exitCode(), set.output());

        long followed = Await.untilRead("a second of admissions at the raised quota",
            Duration.ofSeconds(10), () -> {
              read(ready, admitted);
              return firstSecondWithAtLeast(admitted, setAt, 18);
            }, at -> at >= 0);

        long before = admitted.stream().filter(t -> t >= setAt - 1_000 && t < setAt).count();
        System.out.printf("tenants set 5/s -> 20/s with a full horizon sold: %d admitted in the second"
            + " before; 18 admitted within one second by %d ms after the command returned (gate up"
            + " and a second of load in %d ms); per second from the command until then: %s%n", before,
            followed - setAt, (baseline - started) / 1_000_000,
            perSecond(admitted, setAt, (int) ((followed - setAt) / 1_000) + 1));
        assertTrue(before <= 2 + 5 + 1, "the file's quota before: " + before + " in a second");
        assertTrue(followed - setAt <= 5_000, "followed within 5 s: " + (followed - setAt) + " ms");

        // `status --tenant` shows the tier and bucket the gate now decides by, and where from.
        CliRun status = CliRun.of("status", "--tenant", tenant, "--provider", provider, "--json",
            "--config", file.toString());
        assertEquals(0, status.exitCode(), status.output());
        com.fasterxml.jackson.databind.JsonNode shown =
            new com.fasterxml.jackson.databind.ObjectMapper().readTree(status.out()).path("tenant");
        assertEquals("registry", shown.path("source").asText(), status.out());
        assertEquals(10, shown.path("buckets").path(provider).path("capacity").asInt(), status.out());
      } finally {
        stop.set(true);
        load.join();
      }
    } finally {
      redisCleanUp(redis, tenant);
    }
  }

  /** Admissions in each of the {@code seconds} seconds from {@code from}. */
  private static List<Long> perSecond(List<Long> admitted, long from, int seconds) {
    List<Long> counts = new ArrayList<>();
    for (int s = 0; s < seconds; s++) {
      long start = from + s * 1_000L;
      counts.add(admitted.stream().filter(t -> t >= start && t < start + 1_000).count());
    }
    return counts;
  }

  /** Polls once; the admission times (ready records' timestamps) read so far, sorted. */
  private static int read(KafkaConsumer<byte[], byte[]> ready, List<Long> admitted) {
    ready.poll(Duration.ofMillis(200)).forEach(r -> admitted.add(r.timestamp()));
    admitted.sort(null);
    return admitted.size();
  }

  /**
   * When the admissions from {@code from} first reached {@code n} within one second: the time of
   * the n-th of them (the admitted rate is at least n/s by then); -1 if not yet.
   */
  private static long firstSecondWithAtLeast(List<Long> admitted, long from, int n) {
    List<Long> after = admitted.stream().filter(t -> t >= from).toList();
    for (int i = 0, j = 0; i < after.size(); i++) {
      while (j < after.size() && after.get(j) < after.get(i) + 1_000) {
        j++;
      }
      if (j - i >= n) {
        return after.get(i + n - 1);
      }
    }
    return -1;
  }

  /** The registry is shared by every test of the run: this test's record goes with it. */
  private static void redisCleanUp(RedisServerProcess redis, String tenant) {
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(redis.uri());
    try (var c = client.connect()) {
      c.sync().hdel("sluice:v1:{tenants}", tenant);
    } finally {
      client.shutdown();
    }
  }
}
