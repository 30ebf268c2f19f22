package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.DeploymentHistory;
import io.sluice.redis.SlotMarkers;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.RealServers;
import io.sluice.gate.limiter.AcquireRequest;
import io.sluice.gate.limiter.Acquisition;
import io.sluice.gate.limiter.BucketKey;
import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.LettuceTokenBucketStore;
import io.sluice.gate.limiter.TokenBucketScript;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Redis loses everything while no role runs and the gate's paid reservations wait in the ladder;
 * a dispatcher starts first, then the gate. The dispatcher must not mark Redis's slots "intact":
 * the gate would then rebuild the bucket full beside the reservations still due (chaos seed 101:
 * p-closed/free-4 admitted 8.9 beyond capacity + rate·T after the Redis restart at 123 s).
 */
@ExtendWith(RealServers.class)
class DispatcherFirstAfterRedisWipeIT {
  private static final BucketKey BUCKET = new BucketKey("p", "acme");
  /**
   * A bucket of 10 at 10/s whose line may reach 2 minutes ahead (the ladder's reach): a loss found
   * holds the bucket for that long, longer than this test takes.
   */
  private static final BucketSpec SPEC = new BucketSpec(10, 10, 120_000_000);

  @Test
  void aDispatcherStartingBeforeTheGateDoesNotLetTheGateRebuildALostBucketFull(KafkaBroker kafka)
      throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      SluiceConfig config = config(kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 1);
      RedisClient client = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> connection = client.connect()) {
        // The gate: a first use of Redis, then 25 units charged, about 15 of them paid reservations
        // due within the horizon, and its consumed offsets committed.
        LettuceTokenBucketStore gate = new LettuceTokenBucketStore(connection.async(), TokenBucketScript.load());
        gate.markSlots(DeploymentHistory.ranBefore(config)).toCompletableFuture().get(30, TimeUnit.SECONDS);
        int paid = 0;
        for (int i = 0; i < 25; i++) {
          paid += notAtOnce(acquire(gate)) ? 1 : 0;
        }
        assertTrue(paid >= 10, "the gate left paid reservations in the ladder: " + paid);
        try (Admin admin = Admin.create(config.kafka().clientProperties())) {
          admin.alterConsumerGroupOffsets(config.gate().applicationId(),
              Map.of(new TopicPartition(topics.inbound(), 0), new OffsetAndMetadata(0)))
              .all().get(30, TimeUnit.SECONDS);
        }

        connection.sync().flushall();

        try (DispatcherService ignored = DispatcherService.start(config, Providers.http(config), new Tally())) {
          List<String> intact = intactMarkers(connection);
          assertTrue(intact.isEmpty(), "after a loss the dispatcher marked slots intact: "
              + intact.size() + " of " + SlotMarkers.all().size() + ", e.g. " + intact.stream().limit(3).toList());
        }

        gate.markSlots(DeploymentHistory.ranBefore(config)).toCompletableFuture().get(30, TimeUnit.SECONDS);
        Acquisition first = acquire(gate);
        System.out.printf("gate after the wipe, dispatcher first: granted %d, level before %.2f, ticket %d us%n",
            first.granted(), first.levelBefore(), first.ticketMicros());
        assertTrue(notAtOnce(first), "the gate's first acquire after the wipe was granted at once "
            + "(the bucket rebuilt full beside the paid reservations): " + first);
      } finally {
        client.shutdown();
      }
    }
  }

  private static SluiceConfig config(KafkaBroker kafka, String redisUri) {
    Map<String, String> env = new java.util.HashMap<>(Pipeline.env(kafka, redisUri));
    env.put("SLUICE_GATE__APPLICATION_ID", "gate-" + UUID.randomUUID().toString().substring(0, 8));
    return ConfigLoader.parse("""
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          p:
            url: http://127.0.0.1:9/
            rate: 10/s
            quotas: { std: { capacity: 10, refill: 10/s } }
        """, env);
  }

  private static Acquisition acquire(LettuceTokenBucketStore gate) throws Exception {
    return gate.acquire(BUCKET, SPEC, AcquireRequest.single(1)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Nothing granted now: either no unit (a ticket to wait) or a unit due later (a reservation). */
  private static boolean notAtOnce(Acquisition a) {
    return !a.isGranted() || a.levelBefore() < 1;
  }

  /** Markers that read "0" (nothing lost) or are missing. */
  private static List<String> intactMarkers(StatefulRedisConnection<String, String> connection) {
    List<String> all = SlotMarkers.all();
    List<String> intact = new ArrayList<>();
    for (int from = 0; from < all.size(); from += 1024) {
      for (KeyValue<String, String> kv : connection.sync().mget(
          all.subList(from, Math.min(all.size(), from + 1024)).toArray(new String[0]))) {
        if (!kv.hasValue() || "0".equals(kv.getValue())) {
          intact.add(kv.getKey());
        }
      }
    }
    assertFalse(all.isEmpty());
    return intact;
  }
}
