package io.sluice.app.it;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.app.it.Pipeline.Ready;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.RedisLeakyBucket;
import io.sluice.dispatcher.leak.SlotClaim;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisCircuit;
import io.sluice.redis.RedisConnection;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The dispatcher as the application wires it ({@link DispatcherService}: the Redis leak behind the
 * circuit, each provider's onRedisDown policy) while a real redis-server is SIGKILLed and started
 * again: fail_open and local keep calling their providers, fail_closed calls nothing; once Redis
 * is back the circuit closes, every provider is called again, and the leak is enforced in Redis:
 * slots taken there by someone else hold the dispatcher back.
 */
@ExtendWith(RealServers.class)
class DispatcherRedisDownIT {
  private static final double RATE = 20;

  @Test
  @DisplayName("Redis SIGKILLed and restarted: each onRedisDown policy, then the leak in Redis again")
  void shouldFollowEachPolicyDuringAnOutageAndUseRedisAgainAfter(KafkaBroker kafka) throws Exception {
    Map<String, MockProvider> mocks = new LinkedHashMap<>();
    Map<String, String> names = new LinkedHashMap<>();
    List<AutoCloseable> closing = new ArrayList<>();
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      StringBuilder providers = new StringBuilder();
      for (String policy : List.of("fail_open", "fail_closed", "local")) {
        // No limit of its own: this test counts calls, the leak's precision is tested elsewhere.
        MockProvider mock = MockProvider.start(10_000, 10_000, Duration.ZERO);
        closing.add(mock);
        String name = Providers.uniqueName(policy.replace('_', '-'));
        mocks.put(policy, mock);
        names.put(policy, name);
        providers.append("""
              %s:
                url: %s
                rate: 20/s
                maxInFlight: 8
                timeout: 5s
                onRedisDown: %s
                quotas: { std: { capacity: 10, refill: 1/s } }
            """.formatted(name, mock.url(), policy));
      }
      SluiceConfig config = Pipeline.config("""
          ladder: [250ms, 1s, 5s]
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
          %s""".formatted(providers), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      List<Ready> events = new ArrayList<>();
      for (String name : names.values()) {
        for (int i = 0; i < 800; i++) {
          events.add(new Ready(name + "-" + i, "tenant-" + (i % 4), "std", name));
        }
      }
      Pipeline.produceReady(kafka, topics, events);

      try (DispatcherService service = DispatcherService.start(config, Providers.http(config), new Tally())) {
        RedisCircuit circuit = service.circuit();
        Await.until("10 calls to every provider through the leak in Redis", Duration.ofSeconds(60),
            () -> mocks.values().stream().map(MockProvider::callCount).toList(),
            counts -> counts.stream().allMatch(n -> n >= 10));

        redis.kill();
        long killed = System.nanoTime();
        Await.until("the circuit to open", Duration.ofSeconds(10),
            circuit::state, s -> s != RedisCircuit.State.CLOSED);
        // Slots claimed before the kill (at most a lookahead of 100 ms ahead) may still fire.
        long from = killed + Duration.ofMillis(500).toNanos();
        long to = killed + Duration.ofSeconds(4).toNanos();
        Await.until("the outage window", Duration.ofSeconds(10), () -> System.nanoTime() > to);
        Map<String, Long> during = new LinkedHashMap<>();
        mocks.forEach((policy, mock) -> during.put(policy, callsBetween(mock, from, to)));
        System.out.printf("dispatcher during a 3.5 s Redis outage at %.0f/s: calls %s; circuit %s%n",
            RATE, during, circuit.status());
        assertTrue(circuit.state() != RedisCircuit.State.CLOSED, "Redis is still down");
        assertEquals(0, during.get("fail_closed"), "fail_closed makes no calls while Redis is down");
        double seconds = (to - from) / 1e9;
        assertTrue(during.get("fail_open") >= 0.5 * RATE * seconds,
            "fail_open keeps calling at its rate from this instance: " + during);
        assertTrue(during.get("local") >= 0.5 * RATE * seconds,
            "local keeps calling at its share (the whole rate: this instance owns every partition): "
                + during);
        assertTrue(during.get("fail_open") <= RATE * seconds + 2, "no faster than the rate: " + during);

        redis.restart();
        Await.until("the circuit to close once Redis answers", Duration.ofSeconds(30),
            circuit::state, s -> s == RedisCircuit.State.CLOSED);
        int closedCalls = mocks.get("fail_closed").callCount();
        Await.until("fail_closed to be called again", Duration.ofSeconds(10),
            () -> mocks.get("fail_closed").callCount(), n -> n >= closedCalls + 10);

        // Enforced in Redis again: slots someone else takes there hold this dispatcher back.
        RedisConnection connection = RedisConnection.open(config.redis());
        closing.add(connection);
        RedisLeakyBucket other = new RedisLeakyBucket(connection.commands(), LeakConfig.of(config.dispatcher()));
        RedisClient client = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = client.connect()) {
          for (Map.Entry<String, String> p : names.entrySet()) {
            String name = p.getValue();
            assertEquals(1, c.sync().exists(RedisLeakyBucket.redisKey(name)),
                p.getKey() + ": the leak is in Redis again");
            SlotClaim taken = other.claim(name, RATE, 40, Duration.ofSeconds(2).toNanos() / 1000)
                .toCompletableFuture().get();
            long answered = System.nanoTime();
            // The dispatcher may hold some slots of those 2 s already (it claims ahead); the check below
            // means something as long as the test holds at least 1 s of them.
            assertTrue(taken.granted() >= 20, "the test took at least 1 s of the 2 s of slots: " + taken);
            long lastSlotNanos = answered
                + (taken.slotMicros(taken.granted() - 1) - taken.nowMicros()) * 1000;
            long heldFrom = answered + Duration.ofMillis(300).toNanos();
            Await.until("the slots the test took to pass", Duration.ofSeconds(10),
                () -> System.nanoTime() > lastSlotNanos);
            long held = callsBetween(mocks.get(p.getKey()), heldFrom, lastSlotNanos);
            System.out.printf("%s after the outage: %d calls while the test held %d slots in Redis%n",
                p.getKey(), held, taken.granted());
            assertEquals(0, held, p.getKey() + ": the dispatcher waits for the slots held in Redis");
          }
        } finally {
          client.shutdown();
        }
      }
    } finally {
      for (AutoCloseable c : closing) {
        c.close();
      }
    }
  }

  private static long callsBetween(MockProvider mock, long fromNanos, long toNanos) {
    return mock.calls().stream().filter(c -> c.atNanos() >= fromNanos && c.atNanos() < toNanos).count();
  }
}
