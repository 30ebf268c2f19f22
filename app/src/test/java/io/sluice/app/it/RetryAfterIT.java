package io.sluice.app.it;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
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
 * Provider feedback at a strict provider (50 calls in any sliding second, Sluice at 48/s): a
 * single 429 with {@code Retry-After: 2} stops every call to that provider for two seconds and
 * costs nothing more: calls resume at the configured rate. A 429 that comes back for a call sent
 * after such a pause ended says the rate itself is too high: that one cuts it.
 */
@ExtendWith(RealServers.class)
class RetryAfterIT {
  private static final int LIMIT = 50;
  private static final double RATE = 48;
  private static final long SECOND = 1_000_000_000L;
  /** Calls already on the wire when the 429 was answered may still arrive just after it. */
  private static final long IN_FLIGHT_GRACE = Duration.ofMillis(50).toNanos();

  @Test
  @DisplayName("a single 429 with Retry-After: 2 means no call for 2 s, then the configured rate at once")
  void aSingle429CostsOnlyItsRetryAfter(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (ProviderProcess mock = ProviderProcess.strict(LIMIT)) {
      Run run = new Run(kafka, redis, mock, 400);
      List<MockProvider.Call> calls = run.calls(() -> {
        Await.until("50 calls", Duration.ofSeconds(30), mock::callCount, n -> n >= 50);
        mock.answerNext(429, "2");
      });
      long t429 = first429(calls, 0);
      long resumed = firstAfter(calls, t429 + IN_FLIGHT_GRACE);
      long during = calls.stream().filter(c -> c.atNanos() > t429 + IN_FLIGHT_GRACE
          && c.atNanos() < t429 + 2 * SECOND).count();
      double firstSecond = rate(calls, resumed, resumed + SECOND);
      double nextSeconds = rate(calls, resumed + SECOND, resumed + 4 * SECOND);
      System.out.printf("retry-after: no call for %.0f ms after the 429; then %.1f/s in the first "
              + "second and %.1f/s in the next three (configured %.0f/s); provider 429s beyond "
              + "the scripted one: %d%n", (resumed - t429) / 1e6, firstSecond, nextSeconds, RATE,
          calls.stream().filter(c -> c.status() == 429).count() - 1);
      assertEquals(0, during, "calls started during the 2 s the provider asked for");
      assertTrue(resumed - t429 >= 2 * SECOND);
      assertTrue(firstSecond >= 0.9 * RATE, "a single 429 does not cut the rate: " + firstSecond);
      assertTrue(nextSeconds >= 0.95 * RATE, "nor does anything else: " + nextSeconds);
      assertEquals(1, calls.stream().filter(c -> c.status() == 429).count(),
          "the strict provider refused nothing on its own");
      assertEquals(1, run.tally.get("throttled:" + run.provider));
    }
  }

  @Test
  @DisplayName("a 429 again for a call sent after the pause cuts the rate, which climbs back")
  void aRepeated429CutsTheRate(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (ProviderProcess mock = ProviderProcess.strict(LIMIT)) {
      Run run = new Run(kafka, redis, mock, 700);
      List<MockProvider.Call> calls = run.calls(() -> {
        Await.until("50 calls", Duration.ofSeconds(30), mock::callCount, n -> n >= 50);
        mock.answerNext(429, "1");
        Await.until("the first 429", Duration.ofSeconds(10),
            () -> mock.statusCount(429), n -> n > 0);
        long t429 = first429(mock.calls(), 0);
        Await.until("calls after the pause", Duration.ofSeconds(10),
            () -> mock.calls().stream().filter(c -> c.atNanos() > t429 + SECOND).count(), n -> n >= 20);
        mock.answerNext(429, "1");
      });
      long first = first429(calls, 0);
      long second = first429(calls, first + IN_FLIGHT_GRACE);
      long resumed = firstAfter(calls, second + IN_FLIGHT_GRACE);
      long resumedFirst = firstAfter(calls, first + IN_FLIGHT_GRACE);
      double afterFirst = rate(calls, resumedFirst, second);
      double afterSecond = rate(calls, resumed, resumed + SECOND);
      double later = rate(calls, resumed + 5 * SECOND, resumed + 6 * SECOND);
      System.out.printf("repeated 429: %.1f/s after the first, %.1f/s in the second after the "
              + "repeat, %.1f/s 5-6 s later (configured %.0f/s, recovery 4 s)%n", afterFirst,
          afterSecond, later, RATE);
      assertTrue(afterFirst >= 0.9 * RATE, "the first 429 did not cut: " + afterFirst);
      assertTrue(afterSecond < 0.8 * RATE, "the repeat cut the rate: " + afterSecond);
      assertTrue(later >= 0.9 * RATE, "the rate recovered: " + later);
      assertEquals(2, calls.stream().filter(c -> c.status() == 429).count(),
          "the strict provider refused nothing on its own");
    }
  }

  /** One dispatcher and a relay over {@code n} events at the strict provider, 48/s. */
  private static final class Run {
    final KafkaBroker kafka;
    final ProviderProcess mock;
    final SluiceConfig config;
    final Topics topics;
    final String provider = Providers.uniqueName("retry");
    final Set<String> ids = new HashSet<>();
    final Tally tally = new Tally();

    Run(KafkaBroker kafka, RedisServerProcess redis, ProviderProcess mock, int n) {
      this.kafka = kafka;
      this.mock = mock;
      this.config = Pipeline.config("""
          ladder: [250ms, 1s, 5s]
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              url: %s
              rate: 48/s
              maxInFlight: 8
              timeout: 5s
              quotas: { std: { capacity: 10, refill: 1/s } }
          dispatcher: { recovery: 4s, minRateFactor: 0.25 }
          """.formatted(provider, mock.url()), kafka, redis.uri());
      this.topics = Pipeline.createTopics(config, kafka, 2);
      List<Ready> events = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        events.add(new Ready("r" + i, "tenant-" + (i % 5), "std", provider));
        ids.add("r" + i);
      }
      Pipeline.produceReady(kafka, topics, events);
    }

    /** Runs until every event settled (delivered, the throttled ones after their wait). */
    List<MockProvider.Call> calls(ThrowingRunnable during) throws Exception {
      List<AutoCloseable> closing = new ArrayList<>();
      // Throttled events go round the ladder: the relay brings them back.
      closing.add(RelayService.start(config, RelayListener.NONE));
      Map<String, String> settled;
      try (Running d = new Running(config, "dispatcher", Providers.http(config),
          Providers.redisLeak(config, closing), tally)) {
        during.run();
        settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(90));
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }
      assertEquals(Map.of("outcome", ids.size()), Providers.count(new ArrayList<>(settled.values())),
          "every event delivered in the end, the throttled ones after their wait: " + tally);
      return mock.calls();
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static long first429(List<MockProvider.Call> calls, long after) {
    return calls.stream().filter(c -> c.status() == 429 && c.atNanos() > after)
        .mapToLong(MockProvider.Call::atNanos).findFirst().orElseThrow();
  }

  private static long firstAfter(List<MockProvider.Call> calls, long after) {
    return calls.stream().mapToLong(MockProvider.Call::atNanos).filter(t -> t > after).min()
        .orElseThrow();
  }

  private static double rate(List<MockProvider.Call> calls, long from, long to) {
    long n = calls.stream().filter(c -> c.atNanos() >= from && c.atNanos() < to).count();
    return n / ((to - from) / 1e9);
  }
}
