package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.fair.JainIndex;
import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.testkit.Await;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Weighted fairness across dispatcher instances, on a real broker and Redis: two instances of one
 * group share a provider, and the busy tenants of a tier sit unevenly on the four partitions (1,
 * 1, 2 and 8 of gold's 12), so whichever two partitions each instance gets, one holds at least
 * three times as many gold tenants as the other. Split evenly between the instances, the leak
 * would give the few three times what the many get (Jain's index at most 0.75). Sharing busy
 * tenants through Redis ({@code GlobalShare}) gives every gold tenant the same.
 */
@ExtendWith(RealServers.class)
class FairnessAcrossInstancesIT {
  private static final int PARTITIONS = 4;
  /** Gold tenants on each partition: every split into two pairs is at least 3 to 1. */
  private static final int[] GOLD_PER_PARTITION = {1, 1, 2, 8};
  /** Calls skipped at the start: both instances join, read their backlog and first publish. */
  private static final int WARM_UP = 300;
  private static final int MEASURED = 1_000;

  @Test
  @DisplayName("two instances, gold's tenants split 1+1+2+8 over the partitions: every gold tenant gets the same")
  void shouldGiveEveryBusyTenantOfATierTheSameWhicheverInstanceHoldsIt(KafkaBroker kafka,
      RedisServerProcess redis) throws Exception {
    try (MockProvider mock = MockProvider.start(10_000, 100, Duration.ZERO)) {
      String provider = Providers.uniqueName("fair2");
      SluiceConfig config = Pipeline.config("""
          ladder: [1s, 5s]
          tiers: { gold: { weight: 4 }, free: { weight: 1 } }
          defaultTier: free
          providers:
            %s:
              url: %s
              rate: 100/s
              maxInFlight: 8
              timeout: 5s
              quotas:
                gold: { capacity: 10, refill: 1/s }
                free: { capacity: 10, refill: 1/s }
          dispatcher: { bufferSize: 3000 }
          """.formatted(provider, mock.url()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, PARTITIONS);
      Map<String, String> tierOfTenant = new HashMap<>();
      List<Ready> events = new ArrayList<>();
      // More than any tenant could be sent in the run even if it had its instance's gold share
      // alone: every tenant stays backlogged while measured.
      for (int p = 0; p < PARTITIONS; p++) {
        for (String tenant : tenantsOnPartition("gold-p" + p, p, GOLD_PER_PARTITION[p])) {
          add(events, tierOfTenant, tenant, "gold", provider, 300);
        }
        for (String tenant : tenantsOnPartition("free-p" + p, p, 1)) {
          add(events, tierOfTenant, tenant, "free", provider, 150);
        }
      }
      java.util.Collections.shuffle(events, new java.util.Random(5));
      Pipeline.produceReady(kafka, topics, events);

      List<AutoCloseable> closing = new ArrayList<>();
      try (Running a = new Running(config, "dispatcher-a", Providers.http(config),
              Providers.redisLeak(config, closing), DispatchListener.NONE);
          Running b = new Running(config, "dispatcher-b", Providers.http(config),
              Providers.redisLeak(config, closing), DispatchListener.NONE)) {
        Await.until(WARM_UP + MEASURED + " calls", Duration.ofSeconds(90),
            mock::callCount, n -> n >= WARM_UP + MEASURED);
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }

      Map<String, Map<String, Integer>> byTier = new TreeMap<>();
      for (MockProvider.Call call : mock.calls().subList(WARM_UP, WARM_UP + MEASURED)) {
        String id = call.idempotencyKey();
        String tenant = id.substring(0, id.lastIndexOf('-'));
        byTier.computeIfAbsent(tierOfTenant.get(tenant), t -> new TreeMap<>())
            .merge(tenant, 1, Integer::sum);
      }
      Map<String, Integer> gold = byTier.get("gold");
      double jain = JainIndex.of(gold.values().stream().mapToDouble(Integer::doubleValue).toArray());
      System.out.println("gold calls per tenant " + gold + ", Jain " + jain + "; free "
          + byTier.get("free"));
      assertTrue(gold.size() == 12, "every gold tenant was called: " + gold);
      assertTrue(jain >= 0.95, "gold tenants unequal (Jain " + jain + "): " + gold);
      double goldShare = gold.values().stream().mapToInt(Integer::intValue).sum() / (double) MEASURED;
      assertTrue(Math.abs(goldShare - 0.8) <= 0.05 * 0.8, "gold got " + goldShare + " of the calls, weight share 0.8");
    }
  }

  /** {@code n} tenant names the default partitioner puts on {@code partition} (keyed by tenant). */
  private static List<String> tenantsOnPartition(String prefix, int partition, int n) {
    List<String> names = new ArrayList<>();
    for (int i = 0; names.size() < n; i++) {
      String name = prefix + "-" + i;
      byte[] key = name.getBytes(StandardCharsets.UTF_8);
      if (Utils.toPositive(Utils.murmur2(key)) % PARTITIONS == partition) {
        names.add(name);
      }
    }
    return names;
  }

  private static void add(List<Ready> events, Map<String, String> tierOfTenant, String tenant,
      String tier, String provider, int backlog) {
    tierOfTenant.put(tenant, tier);
    for (int i = 0; i < backlog; i++) {
      events.add(new Ready(tenant + "-" + i, tenant, tier, provider));
    }
  }
}
