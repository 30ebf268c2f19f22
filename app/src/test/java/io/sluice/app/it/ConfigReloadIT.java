package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.app.it.Pipeline.Ready;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.testkit.Await;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.ConfigLoader;
import io.sluice.config.LiveConfig;
import io.sluice.schemas.topic.Topics;
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
 * A provider's rate changed in the configuration while its backlog drains: the dispatcher paces
 * at the old rate until the reload and at the new one from its next claims, without a restart,
 * without a 429 from a strict provider (12 in any second, judged on arrival) and without losing or
 * repeating an event.
 */
@ExtendWith(RealServers.class)
class ConfigReloadIT {
  private static final int EVENTS = 140;

  private static String yaml(String provider, Object url, String rate) {
    return """
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          %s:
            url: %s
            rate: %s
            quotas: { std: { capacity: 10, refill: 1/s } }
        """.formatted(provider, url, rate);
  }

  @Test
  @DisplayName("a rate raised by a reload under load paces the next claims; no 429, none lost")
  void aRateReloadedUnderLoad(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (ProviderProcess mock = ProviderProcess.strict(12)) {
      String provider = Providers.uniqueName("reload");
      Map<String, String> env = Pipeline.env(kafka, redis.uri());
      LiveConfig live = new LiveConfig(ConfigLoader.parse(yaml(provider, mock.url(), "4/s"), env));
      Topics topics = Pipeline.createTopics(live.get(), kafka, 2);
      List<Ready> events = new ArrayList<>();
      Set<String> ids = new HashSet<>();
      for (int i = 0; i < EVENTS; i++) {
        events.add(new Ready("r" + i, "tenant-" + (i % 4), "std", provider, 1, null));
        ids.add("r" + i);
      }
      Pipeline.produceReady(kafka, topics, events);
      long reloadedAt;
      try (DispatcherService service = DispatcherService.start(live, Providers.http(live.get()),
          new DispatchListener() { })) {
        Await.until("30 calls at the first rate", Duration.ofSeconds(60),
            () -> mock.callCount() >= 30);
        reloadedAt = System.nanoTime();
        LiveConfig.Outcome outcome =
            live.reload(() -> ConfigLoader.parse(yaml(provider, mock.url(), "10/s"), env));
        assertEquals(new LiveConfig.Outcome.Applied(List.of("providers." + provider)), outcome);
        Map<String, String> settled = Pipeline.awaitSettled(kafka, topics, ids,
            Duration.ofSeconds(90));
        assertTrue(settled.values().stream().allMatch("outcome"::equals),
            "every event delivered: " + settled);
      }
      List<MockProvider.Call> calls = mock.calls();
      assertEquals(0, calls.stream().filter(c -> c.status() == 429).count(),
          "the strict provider never had to say 429");
      Map<String, Integer> perKey = Providers.count(calls.stream()
          .filter(c -> c.status() == 200).map(MockProvider.Call::idempotencyKey).toList());
      assertEquals(ids, perKey.keySet(), "every event reached the provider");
      assertTrue(perKey.values().stream().allMatch(n -> n == 1), "none twice: " + perKey);

      long[] before = calls.stream().mapToLong(MockProvider.Call::atNanos)
          .filter(t -> t < reloadedAt).sorted().toArray();
      // Slots claimed before the reload (within the lookahead) keep their old spacing: judge the
      // new rate from a second after the reload.
      long[] after = calls.stream().mapToLong(MockProvider.Call::atNanos)
          .filter(t -> t >= reloadedAt + 1_000_000_000L).sorted().toArray();
      double rateBefore = (before.length - 1) / ((before[before.length - 1] - before[0]) / 1e9);
      double rateAfter = (after.length - 1) / ((after[after.length - 1] - after[0]) / 1e9);
      System.out.printf("reload 4/s -> 10/s: %.2f/s over %d calls before, %.2f/s over %d after%n",
          rateBefore, before.length, rateAfter, after.length);
      assertTrue(rateBefore <= 4 * 1.05, "paced at the first rate before the reload: " + rateBefore);
      assertTrue(rateAfter >= 8.5 && rateAfter <= 10 * 1.05,
          "paced at the reloaded rate after it: " + rateAfter);
    }
  }
}
