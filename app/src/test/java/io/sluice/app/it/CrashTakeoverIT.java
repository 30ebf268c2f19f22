package io.sluice.app.it;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Invariant 3 for the dispatcher: a dispatcher stopped as a crash would (no more writes, no
 * commit) mid-run loses nothing. Another instance takes its partitions over from the last commit;
 * every event ends in {@code sluice.outcomes} or {@code sluice.dlq}, with the right reason. Some
 * events are called twice, which the idempotency key lets the provider absorb.
 */
@ExtendWith(RealServers.class)
class CrashTakeoverIT {

  @Test
  @DisplayName("a dispatcher halted mid-run: its successor settles every event, nothing lost")
  void nothingLostWhenADispatcherCrashes(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    try (MockProvider mock = MockProvider.start(10_000, 100, Duration.ofMillis(20))) {
      mock.answerPaths("gone/", new MockProvider.Answer(404, null));
      mock.answerPaths("flaky/", new MockProvider.Answer(500, null));
      String provider = Providers.uniqueName("crash");
      SluiceConfig config = Pipeline.config("""
          ladder: [250ms, 1s]
          maxAttempts: 2
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              url: %s
              rate: 200/s
              maxInFlight: 16
              timeout: 5s
              quotas: { std: { capacity: 10, refill: 1/s } }
          dispatcher: { backoffBase: 100ms, backoffCap: 200ms }
          """.formatted(provider, mock.url()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 4);
      List<Ready> events = new ArrayList<>();
      Map<String, String> expected = new HashMap<>();
      for (int i = 0; i < 600; i++) {
        String id = "c" + i;
        String path = i % 20 == 0 ? "gone/" + i : i % 20 == 1 ? "flaky/" + i : "ok/" + i;
        events.add(new Ready(id, "tenant-" + (i % 7), "std", provider, 1, path));
        expected.put(id, path.startsWith("gone") ? "non_retryable_4xx"
            : path.startsWith("flaky") ? "max_attempts" : "outcome");
      }
      Set<String> ids = new HashSet<>(expected.keySet());
      Pipeline.produceReady(kafka, topics, events);
      List<AutoCloseable> closing = new ArrayList<>();
      // Retries and the throttled event go round the ladder: the relay brings them back.
      closing.add(RelayService.start(config, RelayListener.NONE));
      Map<String, String> settled;
      try {
        Running first = new Running(config, "dispatcher-1", Providers.http(config),
            Providers.redisLeak(config, closing), new Tally());
        Await.until("a third of the calls", Duration.ofSeconds(30),
            mock::callCount, n -> n >= 200);
        first.halt();
        int callsBefore = mock.callCount();
        try (Running second = new Running(config, "dispatcher-2", Providers.http(config),
            Providers.redisLeak(config, closing), new Tally())) {
          settled = Pipeline.awaitSettled(kafka, topics, ids, Duration.ofSeconds(60));
        }
        long unique = mock.calls().stream().map(MockProvider.Call::idempotencyKey)
            .distinct().count();
        System.out.printf("crash takeover: first dispatcher halted after %d calls; %d calls in "
                + "all for %d events (%d unique keys): %d repeated calls after the crash%n",
            callsBefore, mock.callCount(), ids.size(), unique, mock.callCount() - unique
                - events.stream().filter(e -> e.path().startsWith("flaky")).count());
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }
      assertEquals(expected, settled, "every event ends where its provider's answers send it");
    }
  }
}
