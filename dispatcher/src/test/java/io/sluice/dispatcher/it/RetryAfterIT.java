package io.sluice.dispatcher.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.it.Pipeline.Ready;
import io.sluice.dispatcher.it.Pipeline.Running;
import io.sluice.dispatcher.mock.MockProvider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.schemas.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.topology.delay.RelayListener;
import io.sluice.topology.delay.RelayService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Provider feedback: a 429 with {@code Retry-After: 2} stops every call to that provider for two
 * seconds; then calls resume at a cut rate that climbs back to the configured one.
 */
@ExtendWith(RealServers.class)
class RetryAfterIT {
  private static final double RATE = 50;

  @Test
  @DisplayName("429 with Retry-After: 2 means no call for 2 s, then the rate recovers")
  void retryAfterPausesThenRecovers(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    // Burst 10 tolerates the loopback transit jitter of a busy machine (see LeakPrecisionIT).
    try (MockProvider mock = MockProvider.start(RATE, 10, Duration.ZERO)) {
      String provider = Providers.uniqueName("retry");
      SluiceConfig config = Pipeline.config("""
          ladder: [250ms, 1s, 5s]
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              url: %s
              rate: 50/s
              maxInFlight: 8
              timeout: 5s
              quotas: { std: { capacity: 10, refill: 1/s } }
          dispatcher: { recovery: 4s, minRateFactor: 0.25 }
          """.formatted(provider, mock.url()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      Providers.warmUp(config, provider, mock);
      int n = 400;
      List<Ready> events = new ArrayList<>();
      Set<String> ids = new HashSet<>();
      for (int i = 0; i < n; i++) {
        events.add(new Ready("r" + i, "tenant-" + (i % 5), "std", provider));
        ids.add("r" + i);
      }
      Pipeline.produceReady(kafka, topics, events);
      List<AutoCloseable> closing = new ArrayList<>();
      // Retries and the throttled event go round the ladder: the relay brings them back.
      closing.add(RelayService.start(config, RelayListener.NONE));
      Tally tally = new Tally();
      Map<String, String> settled;
      try (Running d = new Running(config, "dispatcher", Providers.http(config),
          Providers.redisLeak(config, closing), tally)) {
        Pipeline.await("50 calls", Duration.ofSeconds(30), () -> mock.callCount() >= 50);
        mock.answerNext(1, new MockProvider.Answer(429, "2"));
        settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(60));
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }
      assertEquals(Map.of("outcome", n), Providers.count(new ArrayList<>(settled.values())),
          "every event delivered in the end, the throttled one after its wait: " + tally);

      List<MockProvider.Call> calls = mock.calls();
      long t429 = calls.stream().filter(c -> c.status() == 429).mapToLong(MockProvider.Call::atNanos)
          .findFirst().orElseThrow();
      // Calls already on the wire when the 429 was answered may still arrive just after it.
      long inFlightGrace = Duration.ofMillis(50).toNanos();
      long during = calls.stream().filter(c -> c.atNanos() > t429 + inFlightGrace
          && c.atNanos() < t429 + Duration.ofSeconds(2).toNanos()).count();
      long resumed = calls.stream().mapToLong(MockProvider.Call::atNanos)
          .filter(t -> t > t429 + inFlightGrace).min().orElseThrow();
      double firstSecond = rate(calls, resumed, resumed + 1_000_000_000L);
      double later = rate(calls, resumed + 5_000_000_000L, resumed + 6_000_000_000L);
      System.out.printf("retry-after: no call for %.0f ms after the 429; rate in the first second "
              + "after: %.1f/s, 5-6 s after: %.1f/s (configured %.0f/s); provider 429s "
              + "beyond the scripted one: %d%n", (resumed - t429) / 1e6, firstSecond, later, RATE,
          mock.rateLimited());
      assertEquals(0, during, "calls started during the 2 s the provider asked for");
      assertTrue(resumed - t429 >= Duration.ofSeconds(2).toNanos());
      assertTrue(firstSecond < 0.9 * RATE, "the rate was cut after the 429: " + firstSecond);
      assertTrue(later >= 0.9 * RATE, "the rate recovered: " + later);
      assertEquals(0, mock.rateLimited());
      assertEquals(1, tally.get("throttled:" + provider));
    }
  }

  private static double rate(List<MockProvider.Call> calls, long from, long to) {
    long n = calls.stream().filter(c -> c.atNanos() >= from && c.atNanos() < to).count();
    return n / ((to - from) / 1e9);
  }
}
