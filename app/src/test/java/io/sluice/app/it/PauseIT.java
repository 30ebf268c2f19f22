package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.admin.StatusReader;
import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.state.CacheKeeper;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.dispatcher.pause.PauseScope;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.operator.OperatorJournal;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A pause of a provider, written to Redis as {@code sluice pause provider} writes it, reaches a
 * running dispatcher (the application's, with its pause watcher) within a second: from then on
 * the provider gets no call until the pause is removed, then gets the rest, each once. With two
 * instances, one partition each, and Redis wiped while paused, neither calls it either.
 */
@ExtendWith(RealServers.class)
class PauseIT {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  /** How long the test watches the paused provider get nothing. */
  private static final Duration WATCHED = Duration.ofMillis(2500);

  private static final CompletableFuture<ProviderResult> ANSWERED =
      CompletableFuture.completedFuture(new ProviderResult.Answered(200, null));

  /** One provider at 20/s that the tests pause. */
  private static SluiceConfig config(String provider, KafkaBroker kafka, String redisUri) {
    return Pipeline.config("""
        ladder: [250ms, 1s]
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          %s:
            url: http://127.0.0.1:1/
            rate: 20/s
            quotas: { std: { capacity: 10, refill: 1/s } }
        """.formatted(provider), kafka, redisUri);
  }

  @Test
  @DisplayName("no call from 1 s after the pause until the resume, then the rest, each once; held events expire")
  void pausedProviderGetsNoCall(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    String provider = Providers.uniqueName("paused");
    SluiceConfig config = config(provider, kafka, redis.uri());
    Topics topics = Pipeline.createTopics(config, kafka, 2);
    List<Ready> events = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 60; i++) {
      events.add(new Ready("p" + i, "tenant-" + (i % 3), "std", provider));
      ids.add("p" + i);
    }
    Pipeline.produceReady(kafka, topics, events);
    ConcurrentLinkedQueue<Long> calledAt = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> called = new ConcurrentLinkedQueue<>();
    Provider recording = call -> {
      calledAt.add(System.nanoTime());
      called.add(call.eventId());
      return ANSWERED;
    };
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
        DispatcherService service = DispatcherService.start(config, Map.of(provider, recording),
            DispatchListener.NONE)) {
      PauseStore store = new PauseStore(connection.async());
      Await.until("10 calls", Duration.ofSeconds(30), () -> called.size() >= 10);

      long pausedAt = System.nanoTime();
      store.pause(PauseScope.provider(provider), "PauseIT", "watching").toCompletableFuture()
          .get(5, TimeUnit.SECONDS);
      Await.until("the pause's events held", Duration.ofSeconds(2),
          () -> service.dispatcher().heldByPause().getOrDefault(provider, 0) > 0);
      // Events that arrive while paused wait too, and their deadline ends them meanwhile.
      Instant deadline = Instant.now().plusSeconds(1);
      List<Ready> doomed = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        doomed.add(new Ready("x" + i, "tenant-" + i, "std", provider, 1, null, deadline));
      }
      Pipeline.produceReady(kafka, topics, doomed);
      Thread.sleep(WATCHED.toMillis()); // the time watched, not a wait for anything
      int heldWhilePaused = service.dispatcher().heldByPause().getOrDefault(provider, 0);
      // What `sluice status --json` prints, read meanwhile: the pause, and what waits in ready.
      JsonNode status;
      try (Admin admin = Admin.create(config.kafka().clientProperties())) {
        status = new StatusReader(config, connection.async(), admin,
            () -> StatusReader.deadLetterReader(config), Clock.systemUTC())
            .read(Optional.of(provider), Optional.of("tenant-1"));
      }
      long resumedAt = System.nanoTime();
      store.resume(PauseScope.provider(provider)).toCompletableFuture().get(5, TimeUnit.SECONDS);

      Set<String> all = new HashSet<>(ids);
      doomed.forEach(d -> all.add(d.id()));
      Map<String, String> settled = Pipeline.awaitSettled(kafka, topics, all, Duration.ofSeconds(30));
      long lastBefore = calledAt.stream().filter(t -> t < resumedAt).mapToLong(t -> t).max()
          .orElseThrow();
      long firstAfter = calledAt.stream().filter(t -> t >= resumedAt).mapToLong(t -> t).min()
          .orElseThrow();
      System.out.printf("pause: last call %.0f ms after the pause was written; %d events held; "
              + "first call %.0f ms after the resume was written%n", (lastBefore - pausedAt) / 1e6,
          heldWhilePaused, (firstAfter - resumedAt) / 1e6);
      assertTrue(lastBefore < pausedAt + SECOND,
          "a call started " + (lastBefore - pausedAt) / 1e6 + " ms after the pause");
      assertTrue(heldWhilePaused > 0, "the paused provider's events were held");
      assertTrue(firstAfter < resumedAt + SECOND, "calls again within a second of the resume");
      assertEquals(Map.of("outcome", ids.size(), "expired", doomed.size()),
          Providers.count(new ArrayList<>(settled.values())));
      doomed.forEach(d -> assertEquals("expired", settled.get(d.id()), "held past its deadline"));
      assertEquals(ids.size(), called.size(), "each event called once, the expired never: " + called);
      assertTrue(status.path("providers").path(provider).path("paused").asBoolean(), status.toString());
      assertEquals("PauseIT", status.path("pauses").path(0).path("by").asText());
      long waitingInReady = status.path("waiting").path("byStage").path("ready").asLong(-1);
      assertTrue(waitingInReady >= heldWhilePaused, "ready's lag counts the held events: " + status);
      assertEquals("std", status.path("tenant").path("tier").asText());
      assertTrue(status.path("errors").isMissingNode(), status.toString());
    } finally {
      client.shutdown();
    }
  }
  @Test
  @DisplayName("two dispatchers and a FLUSHALL while paused: neither calls the paused provider until the resume, then every event once")
  void twoInstancesHoldAPauseThroughAFlushAll(KafkaBroker kafka) throws Exception {
    // Its own redis-server: a FLUSHALL of the shared one would wipe the tests running beside it.
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      String provider = Providers.uniqueName("paused-twice");
      SluiceConfig config = config(provider, kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      ConcurrentLinkedQueue<String> called = new ConcurrentLinkedQueue<>();
      Provider recording = call -> {
        called.add(call.eventId());
        return ANSWERED;
      };
      List<Ready> events = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        events.add(new Ready("w" + i, "tenant-" + (i % 8), "std", provider));
      }
      RedisClient client = RedisClient.create(redis.uri());
      try (StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
          OperatorJournal.Kafka journal = OperatorJournal.open(config);
          CacheKeeper keeper = CacheKeeper.start(config);
          DispatcherService a = DispatcherService.start(config, Map.of(provider, recording),
              DispatchListener.NONE);
          DispatcherService b = DispatcherService.start(config, Map.of(provider, recording),
              DispatchListener.NONE);
          // A pause holds an event 5 s, then parks it in Kafka (PauseKeeper): on a busy machine
          // the steps below take longer, and the parked ones come back through the relay.
          RelayService relay = RelayService.start(config, RelayListener.NONE)) {
        PauseStore pauses = new PauseStore(connection.async(), journal);
        pauses.pause(PauseScope.provider(provider), "PauseIT", "two instances")
            .toCompletableFuture().get(20, TimeUnit.SECONDS);
        Await.until("both instances hold the pause", Duration.ofSeconds(10),
            () -> a.pauses().current().holds(provider, "tenant-0")
                && b.pauses().current().holds(provider, "tenant-0"));
        Pipeline.produceReady(kafka, topics, events);
        Await.until("each instance holds events of the pause (one partition each)",
            Duration.ofSeconds(30),
            () -> a.dispatcher().heldByPause().getOrDefault(provider, 0) > 0
                && b.dispatcher().heldByPause().getOrDefault(provider, 0) > 0);

        connection.sync().flushall();
        Await.until("the pause back in Redis", Duration.ofSeconds(10),
            () -> pauses.read().toCompletableFuture().join().holds(provider, "tenant-0"));
        Thread.sleep(WATCHED.toMillis()); // the time watched, not a wait for anything
        assertEquals(List.of(), List.copyOf(called), "no call while paused, through the wipe, on either instance");

        pauses.resume(PauseScope.provider(provider)).toCompletableFuture().get(20, TimeUnit.SECONDS);
        Set<String> ids = new HashSet<>();
        events.forEach(e -> ids.add(e.id()));
        // Parked ones are looked at again 30 s after they were parked (PauseKeeper.RECHECK_MILLIS).
        Map<String, String> settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(60));
        assertEquals(Map.of("outcome", ids.size()), Providers.count(new ArrayList<>(settled.values())));
        assertEquals(ids.size(), called.size(), "each event called once: " + called);
        assertEquals(ids, new HashSet<>(called));
      } finally {
        client.shutdown();
      }
    }
  }
}
