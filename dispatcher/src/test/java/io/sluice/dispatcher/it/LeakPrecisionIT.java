package io.sluice.dispatcher.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.it.Pipeline.Ready;
import io.sluice.dispatcher.it.Pipeline.Running;
import io.sluice.dispatcher.mock.MockProvider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.schemas.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Invariant 2, steady leak: two dispatcher instances share one provider's leak through Redis, so
 * together they start at most {@code rate * T + 1} calls in any window {@code T}, keep the
 * provider busy at its rate while there is a backlog, and never earn a 429 from a provider that
 * enforces exactly that rate.
 */
@ExtendWith(RealServers.class)
class LeakPrecisionIT {
  private static final double RATE = 50;
  private static final int EVENTS = 400;

  @Test
  @DisplayName("two dispatchers at a 50/s provider: <= rate*T+1 per window, >= 95% of rate, no 429")
  void twoInstancesShareOneLeak(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    // Burst 10: the provider tolerates 180 ms of jitter between our starting a call and its
    // arrival, as real rate limits do; on 2 busy cores the loopback HTTP transit alone reaches
    // 150 ms at times (measured, printed below). What the dispatcher controls, when calls start,
    // is held to the exact bound below.
    try (MockProvider mock = MockProvider.start(RATE, 10, Duration.ZERO)) {
      String provider = Providers.uniqueName("leak");
      SluiceConfig config = Pipeline.config("""
          ladder: [1s, 5s]
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              url: %s
              rate: 50/s
              maxInFlight: 16
              timeout: 5s
              quotas: { std: { capacity: 10, refill: 1/s } }
          """.formatted(provider, mock.url()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 4);
      Providers.warmUp(config, provider, mock);
      List<AutoCloseable> closing = new ArrayList<>();
      // When each call started, as the dispatchers saw it (one JVM: one nanoTime clock).
      ConcurrentLinkedQueue<Long> started = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<Long> late = new ConcurrentLinkedQueue<>();
      DispatchListener starts = new DispatchListener() {
        @Override
        public void callStarted(String p, String tier, long slotMicros, long lateNanos) {
          started.add(System.nanoTime());
          late.add(lateNanos);
        }
      };
      // When each event's call was handed to the HTTP client, to report the transit time.
      Map<String, Long> sentAt = new ConcurrentHashMap<>();
      try (Running a = new Running(config, "dispatcher-a", Providers.timed(Providers.http(config), sentAt),
              Providers.redisLeak(config, closing), starts);
          Running b = new Running(config, "dispatcher-b", Providers.timed(Providers.http(config), sentAt),
              Providers.redisLeak(config, closing), starts)) {
        Pipeline.await("both dispatchers to own partitions", Duration.ofSeconds(30),
            () -> a.dispatcher.assignedPartitions() > 0 && b.dispatcher.assignedPartitions() > 0);
        List<Ready> events = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < EVENTS; i++) {
          events.add(new Ready("e" + i, "tenant-" + (i % 10), "std", provider));
          ids.add("e" + i);
        }
        Pipeline.produceReady(kafka, topics, events);
        Pipeline.await(EVENTS + " calls", Duration.ofSeconds(60),
            () -> mock.callCount() >= EVENTS);
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }

      long[] transit = mock.calls().stream()
          .mapToLong(c -> c.atNanos() - sentAt.get(c.idempotencyKey())).sorted().toArray();
      long[] begun = started.stream().mapToLong(Long::longValue).sorted().toArray();
      long[] lates = late.stream().mapToLong(Long::longValue).sorted().toArray();
      long[] at = mock.calls().stream().mapToLong(MockProvider.Call::atNanos).sorted().toArray();
      int maxPerSecond = Providers.maxInAnyWindow(begun, Duration.ofSeconds(1));
      int maxPer200ms = Providers.maxInAnyWindow(begun, Duration.ofMillis(200));
      double seconds = (begun[begun.length - 1] - begun[0]) / 1e9;
      double achieved = (begun.length - 1) / seconds;
      System.out.printf("leak precision: %d calls in %.2f s by 2 instances = %.2f/s (%.1f%% of "
              + "50/s); calls started in any 1 s window: max %d (bound 51), in any 200 ms: max %d "
              + "(bound 11); start after slot due: p50 %.2f ms, p99 %.2f ms, max %.2f ms; at the "
              + "provider: max %d in any 1 s, %d in any 200 ms, 429s %d; HTTP transit p50 %.2f ms, "
              + "p99 %.2f ms, max %.2f ms%n",
          begun.length, seconds, achieved, 100 * achieved / RATE, maxPerSecond, maxPer200ms,
          lates[lates.length / 2] / 1e6, lates[lates.length * 99 / 100] / 1e6,
          lates[lates.length - 1] / 1e6, Providers.maxInAnyWindow(at, Duration.ofSeconds(1)),
          Providers.maxInAnyWindow(at, Duration.ofMillis(200)), mock.rateLimited(),
          transit[transit.length / 2] / 1e6, transit[transit.length * 99 / 100] / 1e6,
          transit[transit.length - 1] / 1e6);
      assertEquals(EVENTS, at.length, "one call per event");
      assertTrue(maxPerSecond <= RATE + 1, "calls in some 1 s window: " + maxPerSecond);
      assertTrue(maxPer200ms <= RATE * 0.2 + 1, "calls in some 200 ms window: " + maxPer200ms);
      assertTrue(achieved >= 0.95 * RATE, "achieved only " + achieved + "/s while backlogged");
      assertEquals(0, mock.rateLimited(), "the provider never had to say 429");
    }
  }
}
