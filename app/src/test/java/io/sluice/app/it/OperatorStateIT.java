package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.state.CacheKeeper;
import io.sluice.config.Quota;
import io.sluice.config.Rate;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantEndpoint;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.dispatcher.pause.PauseRules;
import io.sluice.dispatcher.pause.PauseScope;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.dispatcher.pause.PauseWatcher;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.operator.OperatorJournal;
import io.sluice.redis.operator.OperatorLog;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.redis.tenants.TenantRegistry;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Pauses and tenant records set by an operator live in the operator topic, with Redis as their
 * cache: a {@code FLUSHALL} lifts no pause and loses no record, and a dispatcher started while
 * Redis holds nothing (an empty replica) or does not answer honours the topic's pauses.
 */
@ExtendWith(RealServers.class)
class OperatorStateIT {
  /** The decision's bound: every pause and record back in Redis within this of a FLUSHALL. */
  private static final Duration BACK_WITHIN = Duration.ofSeconds(5);

  private static SluiceConfig config(KafkaBroker kafka, String redisUri, String paused, String open) {
    return Pipeline.config("""
        ladder: [250ms, 1s]
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          %s:
            url: http://127.0.0.1:1/
            rate: 50/s
            quotas: { std: { capacity: 10, refill: 1/s } }
          %s:
            url: http://127.0.0.1:1/
            rate: 50/s
            quotas: { std: { capacity: 10, refill: 1/s } }
        """.formatted(paused, open), kafka, redisUri);
  }

  /** A provider that answers 200 and counts its calls. */
  private static Provider recording(AtomicInteger calls) {
    return call -> {
      calls.incrementAndGet();
      return CompletableFuture.completedFuture(new ProviderResult.Answered(200, null));
    };
  }

  private static List<Ready> events(String stem, String provider, int n) {
    List<Ready> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Ready(stem + i, "tenant-" + (i % 3), "std", provider));
    }
    return out;
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> call) {
    return call.toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
  }

  @Test
  @DisplayName("FLUSHALL: every pause, tenant record and endpoint back in Redis within 5 s; the paused provider never called")
  void shouldSeedRedisAgainAfterAFlushAllWithoutLiftingAnyPause(KafkaBroker kafka) throws Exception {
    // Its own redis-server: a FLUSHALL of the shared one would wipe the tests running beside it.
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      flushAllWithAPauseHeld(kafka, redis);
    }
  }

  private void flushAllWithAPauseHeld(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    String paused = Providers.uniqueName("paused");
    String open = Providers.uniqueName("open");
    SluiceConfig config = config(kafka, redis.uri(), paused, open);
    Topics topics = Pipeline.createTopics(config, kafka, 2);
    AtomicInteger pausedCalls = new AtomicInteger();
    AtomicInteger openCalls = new AtomicInteger();
    TenantRecord acme = new TenantRecord("std", Map.of(open, new Quota(60, Rate.parse("20/s"))),
        false, Map.of(paused, new TenantEndpoint(URI.create("https://hooks.acme.example/in"))));
    TenantRecord globex = new TenantRecord("std", Map.of(), true);
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
        OperatorJournal.Kafka journal = OperatorJournal.open(config);
        CacheKeeper keeper = CacheKeeper.start(config)) {
      PauseStore pauses = new PauseStore(connection.async(), journal);
      TenantRegistry tenants = new TenantRegistry(connection.async(), journal);
      await(pauses.pause(PauseScope.provider(paused), "OperatorStateIT", "INC-1"));
      await(pauses.pause(PauseScope.of(open, "tenant-9"), "OperatorStateIT", "one tenant"));
      await(tenants.put("acme", acme, "OperatorStateIT"));
      await(tenants.put("globex", globex, "OperatorStateIT"));
      Pipeline.produceReady(kafka, topics, events("p", paused, 30));
      Pipeline.produceReady(kafka, topics, events("o", open, 30));
      try (DispatcherService service = DispatcherService.start(config,
          Map.of(paused, recording(pausedCalls), open, recording(openCalls)), DispatchListener.NONE)) {
        Await.until("the open provider's 30 events called", Duration.ofSeconds(30),
            () -> openCalls.get() >= 30);
        Await.until("the paused provider's events held", Duration.ofSeconds(5),
            () -> service.dispatcher().heldByPause().getOrDefault(paused, 0) > 0);
        Await.until("the keeper marked both caches whole", Duration.ofSeconds(10),
            () -> await(pauses.marker()).isPresent() && await(tenants.marker()).isPresent());

        // Watch the dispatcher's pauses from before the wipe until after it is repaired.
        AtomicBoolean watching = new AtomicBoolean(true);
        AtomicInteger lifted = new AtomicInteger();
        AtomicInteger looks = new AtomicInteger();
        Thread watcher = new Thread(() -> {
          while (watching.get()) {
            PauseRules now = service.pauses().current();
            looks.incrementAndGet();
            if (!now.holds(paused, "tenant-0") || !now.holds(open, "tenant-9")) {
              lifted.incrementAndGet();
            }
            java.util.concurrent.locks.LockSupport.parkNanos(200_000); // a look every 0.2 ms
          }
        });
        watcher.start();

        long wiped = System.nanoTime();
        connection.sync().flushall();
        Await.until("every pause and record back in Redis", BACK_WITHIN, () -> {
          PauseRules cached = await(pauses.read());
          return cached.holds(paused, "x") && cached.holds(open, "tenant-9")
              && await(tenants.get("acme")).tenant().isPresent()
              && await(tenants.get("globex")).tenant().isPresent();
        });
        long backMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - wiped);
        // After the repair, the dispatcher still runs: more events of the open provider are called.
        Pipeline.produceReady(kafka, topics, events("q", open, 30));
        Await.until("the open provider's next 30 events called", Duration.ofSeconds(30),
            () -> openCalls.get() >= 60);
        watching.set(false);
        watcher.join();

        System.out.printf("FLUSHALL: pauses and tenant records back in Redis %d ms after it; the "
            + "dispatcher's pauses looked at %d times meanwhile, lifted %d times; %d calls to the "
            + "paused provider%n", backMillis, looks.get(), lifted.get(), pausedCalls.get());
        assertEquals(0, lifted.get(), "the dispatcher honoured every pause throughout");
        assertEquals(0, pausedCalls.get(), "the paused provider was never called");
        assertEquals(acme, await(tenants.get("acme")).tenant().orElseThrow().record(),
            "the record with its quota and endpoint, as written");
        assertEquals(globex, await(tenants.get("globex")).tenant().orElseThrow().record());
        assertEquals(Optional.of("seeded"), await(tenants.marker()));
      }
    } finally {
      client.shutdown();
    }
  }

  @Test
  @DisplayName("a dispatcher started on an empty Redis (a failover to an empty replica) holds the topic's pause")
  void shouldHoldTheTopicsPauseWhenStartedOnAnEmptyRedis(KafkaBroker kafka) throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      startOnAnEmptyRedis(kafka, redis);
    }
  }

  private void startOnAnEmptyRedis(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    String paused = Providers.uniqueName("paused");
    String open = Providers.uniqueName("open");
    SluiceConfig config = config(kafka, redis.uri(), paused, open);
    Topics topics = Pipeline.createTopics(config, kafka, 2);
    AtomicInteger pausedCalls = new AtomicInteger();
    AtomicInteger openCalls = new AtomicInteger();
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
        OperatorJournal.Kafka journal = OperatorJournal.open(config)) {
      await(new PauseStore(connection.async(), journal).pause(PauseScope.provider(paused),
          "OperatorStateIT", "before the failover"));
      connection.sync().flushall(); // the replica that took over never had it; no keeper runs
      Pipeline.produceReady(kafka, topics, events("p", paused, 20));
      Pipeline.produceReady(kafka, topics, events("o", open, 20));
      try (DispatcherService service = DispatcherService.start(config,
          Map.of(paused, recording(pausedCalls), open, recording(openCalls)), DispatchListener.NONE)) {
        Await.until("the open provider's 20 events called", Duration.ofSeconds(30),
            () -> openCalls.get() >= 20);
        Await.until("the paused provider's events held", Duration.ofSeconds(5),
            () -> service.dispatcher().heldByPause().getOrDefault(paused, 0) > 0);
        assertEquals(0, pausedCalls.get(), "the paused provider was never called");
      }
    } finally {
      client.shutdown();
    }
  }

  @Test
  @DisplayName("a dispatcher's pauses, started while Redis does not answer, hold the topic's pause")
  void shouldHoldTheTopicsPauseWhenStartedWhileRedisIsDown(KafkaBroker kafka) throws Exception {
    String paused = Providers.uniqueName("paused");
    try (RedisServerProcess own = RedisServerProcess.start()) {
      SluiceConfig config = config(kafka, own.uri(), paused, Providers.uniqueName("open"));
      Pipeline.createTopics(config, kafka, 1);
      RedisClient client = RedisClient.create(own.uri());
      try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
          OperatorJournal.Kafka journal = OperatorJournal.open(config)) {
        PauseStore store = new PauseStore(connection.async(), journal);
        await(store.pause(PauseScope.provider(paused), "OperatorStateIT", "then Redis died"));
        own.kill();
        // As DispatcherService starts its watcher: the Redis store, and the operator topic.
        try (PauseWatcher watcher = PauseWatcher.start(store, OperatorLog.follow(config))) {
          assertTrue(watcher.current().holds(paused, "acme"),
              "held from the start, Redis never answering: " + watcher.current());
          Await.until("Redis's read has failed", Duration.ofSeconds(10), watcher::failing);
          assertTrue(watcher.current().holds(paused, "acme"), "still held: " + watcher.current());
        }
      } finally {
        client.shutdown();
      }
    }
  }
}
