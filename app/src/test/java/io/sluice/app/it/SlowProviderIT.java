package io.sluice.app.it;

import io.sluice.testkit.Await;
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
 * A slow provider never holds up a fast one: their events share partitions, the slow one's calls
 * take 2 s each and fill its buffer, and the fast one's events still go at the fast one's rate,
 * because the slow buffer overflows into the ladder instead of stopping the consumer.
 */
@ExtendWith(RealServers.class)
class SlowProviderIT {

  @Test
  @DisplayName("a provider whose calls take 2 s does not delay a fast one sharing its partitions")
  void slowDoesNotDelayFast(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (MockProvider fastMock = MockProvider.start(10_000, 100, Duration.ZERO);
        MockProvider slowMock = MockProvider.start(10_000, 100, Duration.ofSeconds(2))) {
      String fast = Providers.uniqueName("fast");
      String slow = Providers.uniqueName("slow");
      SluiceConfig config = Pipeline.config("""
          ladder: [1s, 5s, 30s]
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              url: %s
              rate: 100/s
              maxInFlight: 8
              timeout: 5s
              quotas: { std: { capacity: 10, refill: 1/s } }
            %s:
              url: %s
              rate: 100/s
              maxInFlight: 2
              timeout: 5s
              quotas: { std: { capacity: 10, refill: 1/s } }
          dispatcher: { bufferSize: 200 }
          """.formatted(fast, fastMock.url(), slow, slowMock.url()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      List<Ready> events = new ArrayList<>();
      Set<String> fastIds = new HashSet<>();
      for (int i = 0; i < 300; i++) {
        // A slow event before every fast one, same tenants, so same partitions.
        events.add(new Ready("slow" + i, "tenant-" + (i % 4), "std", slow));
        events.add(new Ready("fast" + i, "tenant-" + (i % 4), "std", fast));
        fastIds.add("fast" + i);
      }
      List<AutoCloseable> closing = new ArrayList<>();
      // Overflow goes round the ladder: the relay brings it back.
      closing.add(RelayService.start(config, RelayListener.NONE));
      Tally tally = new Tally();
      try (Running d = new Running(config, "dispatcher", Providers.http(config),
          Providers.redisLeak(config, closing), tally)) {
        Await.until("the dispatcher to own its partitions", Duration.ofSeconds(30),
            d.dispatcher::assignedReadyPartitions, n -> n == 2);
        long start = System.nanoTime();
        Pipeline.produceReady(kafka, topics, events);
        Map<String, String> settled =
            Pipeline.awaitSettled(kafka, topics, fastIds, Duration.ofSeconds(30));
        double seconds = (System.nanoTime() - start) / 1e9;
        int slowCalls = slowMock.callCount();
        System.out.printf("slow provider isolation: 300 fast events settled in %.2f s (3 s at "
                + "100/s; a third of them overflowed a 200-event buffer and came back through the "
            + "ladder) while the slow provider (2 s per call, 2 in flight) took %d calls; "
                + "slow events deferred for overflow: %d%n",
            seconds, slowCalls, tally.get("deferred:" + slow + ":overflow"));
        assertTrue(settled.values().stream().allMatch("outcome"::equals), settled.toString());
        assertTrue(seconds < 3 + 3, "fast events took " + seconds + " s");
        assertTrue(slowCalls <= 2 * (seconds / 2 + 1), "slow calls: " + slowCalls);
        assertTrue(tally.get("deferred:" + slow + ":overflow") > 0,
            "the slow buffer overflowed into the ladder: " + tally);
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }
    }
  }
}
