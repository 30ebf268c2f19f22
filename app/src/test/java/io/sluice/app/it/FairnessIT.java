package io.sluice.app.it;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.fair.JainIndex;
import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Invariant 6, weighted fairness: three tiers weighted 8:4:1 saturate one provider. While every
 * tier has a backlog, each tier's share of calls is within 5% of its weight share, and the
 * backlogged tenants of one tier get equal shares (Jain's index at least 0.95), although their
 * backlogs differ.
 */
@ExtendWith(RealServers.class)
class FairnessIT {
  /** Calls skipped at the start, while the dispatcher is still reading its backlog. */
  private static final int WARM_UP = 100;
  private static final int MEASURED = 1040;

  @Test
  @DisplayName("tiers 8:4:1 on a saturated provider: shares within 5% of weights, Jain >= 0.95")
  void weightedShares(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (MockProvider mock = MockProvider.start(10_000, 100, Duration.ZERO)) {
      String provider = Providers.uniqueName("fair");
      SluiceConfig config = Pipeline.config("""
          ladder: [1s, 5s]
          tiers: { enterprise: { weight: 8 }, pro: { weight: 4 }, free: { weight: 1 } }
          defaultTier: free
          providers:
            %s:
              url: %s
              rate: 250/s
              maxInFlight: 8
              timeout: 5s
              quotas:
                enterprise: { capacity: 10, refill: 1/s }
                pro: { capacity: 10, refill: 1/s }
                free: { capacity: 10, refill: 1/s }
          dispatcher: { bufferSize: 3000 }
          """.formatted(provider, mock.url()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 4);
      // Backlogs differ between tenants of a tier (the first has twice the others), and every
      // tier has more than its share of the measured calls, so none runs dry while measured.
      List<Ready> events = new ArrayList<>();
      Map<String, String> tierOfTenant = new HashMap<>();
      addTier(events, tierOfTenant, provider, "enterprise", 4, 220);
      addTier(events, tierOfTenant, provider, "pro", 3, 160);
      addTier(events, tierOfTenant, provider, "free", 3, 60);
      java.util.Collections.shuffle(events, new java.util.Random(3));
      Pipeline.produceReady(kafka, topics, events);

      List<AutoCloseable> closing = new ArrayList<>();
      try (Running d = new Running(config, "dispatcher", Providers.http(config),
          Providers.redisLeak(config, closing), new Tally())) {
        Await.until(WARM_UP + MEASURED + " calls", Duration.ofSeconds(60),
            mock::callCount, n -> n >= WARM_UP + MEASURED);
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }

      List<MockProvider.Call> measured = mock.calls().subList(WARM_UP, WARM_UP + MEASURED);
      Map<String, Integer> byTier = new TreeMap<>();
      Map<String, Map<String, Integer>> byTenant = new TreeMap<>();
      for (MockProvider.Call call : measured) {
        String id = call.idempotencyKey();
        String tenant = id.substring(0, id.lastIndexOf('-'));
        String tier = tierOfTenant.get(tenant);
        byTier.merge(tier, 1, Integer::sum);
        byTenant.computeIfAbsent(tier, t -> new TreeMap<>()).merge(tenant, 1, Integer::sum);
      }
      Map<String, Double> weights = Map.of("enterprise", 8.0, "pro", 4.0, "free", 1.0);
      StringBuilder report = new StringBuilder("tier shares over " + MEASURED + " calls:");
      for (Map.Entry<String, Double> w : weights.entrySet()) {
        double expected = w.getValue() / 13.0;
        double share = byTier.getOrDefault(w.getKey(), 0) / (double) MEASURED;
        double jain = JainIndex.of(byTenant.getOrDefault(w.getKey(), Map.of()).values().stream()
            .mapToDouble(Integer::doubleValue).toArray());
        report.append(String.format(" %s %.2f%% (weight share %.2f%%, Jain %.3f over %s);",
            w.getKey(), 100 * share, 100 * expected, jain, byTenant.get(w.getKey())));
        assertTrue(Math.abs(share - expected) <= 0.05 * expected,
            w.getKey() + " got " + share + " of the calls, weight share " + expected);
        assertTrue(jain >= 0.95, w.getKey() + " tenants unequal: " + byTenant.get(w.getKey()));
      }
      System.out.println(report);
    }
  }

  private static void addTier(List<Ready> events, Map<String, String> tierOfTenant,
      String provider, String tier, int tenants, int perTenant) {
    for (int t = 0; t < tenants; t++) {
      String tenant = tier + "-" + t;
      tierOfTenant.put(tenant, tier);
      int backlog = t == 0 ? 2 * perTenant : perTenant;
      for (int i = 0; i < backlog; i++) {
        events.add(new Ready(tenant + "-" + i, tenant, tier, provider));
      }
    }
  }
}
