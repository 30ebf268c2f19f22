package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.schemas.topic.Topics;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Priority classes on a real broker and redis-server, against a provider allowing 400 calls in
 * any second with no burst, paced at 200/s ({@link Pipeline#oneProvider}; the lane's buffer of
 * 1,000 holds every event): tenant {@code bulk} has a backlog of {@code low}
 * events and tenant {@code steady} one of events naming no class, both in one tier. Once both
 * are being called, {@code bulk} sends {@code high} events: they are called before the rest of
 * its lows, and {@code steady} keeps its half of the calls while they are.
 */
@ExtendWith(RealServers.class)
class PriorityIT {
  private static final int LOWS = 450;
  private static final int STEADY = 450;
  private static final int HIGHS = 40;
  /** Calls made before the highs are sent: both backlogs are then queued in the lane. */
  private static final int BEFORE_HIGHS = 40;

  @Test
  @DisplayName("a tenant's highs sent behind its low backlog are called first; the other tenant's share is unchanged")
  void highsOvertakeTheirTenantsLowsOnly(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (MockProvider mock = MockProvider.start(400, Duration.ZERO)) {
      String provider = Providers.uniqueName("prio");
      SluiceConfig config = Pipeline.oneProvider(provider, mock.url(), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 2);
      List<Ready> backlog = new ArrayList<>();
      for (int i = 0; i < LOWS; i++) {
        backlog.add(new Ready("bulk-low-" + i, "bulk", "std", provider, 1, null, null, "low"));
      }
      for (int i = 0; i < STEADY; i++) {
        backlog.add(new Ready("steady-" + i, "steady", "std", provider));
      }
      Collections.shuffle(backlog, new Random(36));
      Pipeline.produceReady(kafka, topics, backlog);

      List<AutoCloseable> closing = new ArrayList<>();
      try (Running d = new Running(config, "dispatcher", Providers.http(config),
          Providers.redisLeak(config, closing), new Tally())) {
        Await.until(BEFORE_HIGHS + " calls", Duration.ofSeconds(60),
            mock::callCount, n -> n >= BEFORE_HIGHS);
        List<Ready> highs = new ArrayList<>();
        for (int i = 0; i < HIGHS; i++) {
          highs.add(new Ready("bulk-high-" + i, "bulk", "std", provider, 1, null, null, "high"));
        }
        Pipeline.produceReady(kafka, topics, highs);
        Await.until("every high called", Duration.ofSeconds(30),
            () -> mock.calls().stream().filter(c -> c.idempotencyKey().startsWith("bulk-high-")).count(),
            n -> n == HIGHS);
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }

      List<String> ids = mock.calls().stream().map(MockProvider.Call::idempotencyKey).toList();
      int firstHigh = -1;
      int lastHigh = -1;
      for (int i = 0; i < ids.size(); i++) {
        if (ids.get(i).startsWith("bulk-high-")) {
          firstHigh = firstHigh < 0 ? i : firstHigh;
          lastHigh = i;
        }
      }
      List<String> window = ids.subList(firstHigh, lastHigh + 1);
      long lowsAmongHighs = window.stream().filter(id -> id.startsWith("bulk-low-")).count();
      long steadyAmongHighs = window.stream().filter(id -> id.startsWith("steady-")).count();
      long calledLows = ids.stream().filter(id -> id.startsWith("bulk-low-")).count();
      String report = "calls " + ids.size() + "; highs called from call " + firstHigh + " to "
          + lastHigh + ", with " + lowsAmongHighs + " of bulk's lows and " + steadyAmongHighs
          + " of steady's between; " + calledLows + " lows called in all";
      System.out.println(report);

      assertTrue(calledLows < LOWS, "bulk's lows were still waiting: " + report);
      // A call already fired when the highs arrived may come between them, nothing later.
      assertTrue(lowsAmongHighs <= 2, "bulk's lows went between its highs: " + report);
      // Steady's share: half of the calls while both are backlogged, whatever bulk's classes.
      double steadyShare = steadyAmongHighs / (double) window.size();
      assertTrue(Math.abs(steadyShare - 0.5) <= 0.1, "steady's share " + steadyShare + ": " + report);
      assertEquals(HIGHS + lowsAmongHighs + steadyAmongHighs, window.size(), report);
    }
  }
}
