package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.app.it.Pipeline.Ready;
import io.sluice.app.it.Pipeline.Running;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.testkit.Await;
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
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Several limits at once at a strict provider (its own JVM, judging ARRIVAL times in sliding
 * windows, no burst): 20 calls in any second, 100 calls in any 10 s, 300 cost units in any 10 s.
 * Two dispatcher instances share a provider configured with exactly those limits (plus a generous
 * rate, and a concurrency limit that leases every slot), and a backlog of events costing 1 to 5.
 * The provider must never answer 429, and in its busiest 10 s the calls must use at least 95 % of
 * the binding allowance (calls or cost, whichever the mix fills first).
 *
 * <p>The margin (how much longer than {@code per} Sluice keeps a window of slot times) is 150 ms
 * here, not the default 20 ms: this JVM runs the broker and both dispatchers on a small shared
 * machine, so a call can leave tens of milliseconds after its slot (a collector pause), and the
 * first call of a cold HTTP client about 100 ms after it. With 20 ms, two or three calls of a run
 * were seen to arrive inside a window the provider had already filled.
 *
 * <p>The dispatcher does not (yet) send an event's cost to the provider; the test adds it as an
 * attribute the provider config forwards ({@code X-Cost}), and the provider reads it there.
 */
@ExtendWith(RealServers.class)
class ProviderLimitsIT {
  private static final int EVENTS = 200;

  @Test
  @DisplayName("two dispatchers at a strict provider of three windows: 0 429s, the binding window used")
  void twoInstancesAtTheCombinedLimits(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    try (ProviderProcess mock = ProviderProcess.withOptions("--limit", "20/1s", "--limit", "100/10s",
        "--cost-limit", "300/10s", "--cost-header", "X-Cost", "--latency-ms", "20")) {
      String provider = Providers.uniqueName("limits");
      SluiceConfig config = Pipeline.config("""
          ladder: [1s, 5s]
          tiers: { std: { weight: 1 } }
          defaultTier: std
          providers:
            %s:
              url: %s
              limits:
                - { rate: 40/s }
                - { calls: 20, per: 1s, window: sliding, margin: 150ms }
                - { calls: 100, per: 10s, window: sliding, margin: 150ms }
                - { cost: 300, per: 10s, window: sliding, margin: 150ms }
                - { concurrency: 3 }
              maxInFlight: 16
              timeout: 5s
              forwardHeaders: [X-Cost]
              quotas: { std: { capacity: 10, refill: 1/s } }
          """.formatted(provider, mock.url()), kafka, redis.uri());
      Topics topics = Pipeline.createTopics(config, kafka, 4);
      List<Ready> events = new ArrayList<>();
      Map<String, Integer> costs = new HashMap<>();
      for (int i = 0; i < EVENTS; i++) {
        int cost = 1 + (i * 7) % 5;
        events.add(new Ready("e" + i, "tenant-" + (i % 10), "std", provider, cost, null));
        costs.put("e" + i, cost);
      }
      Pipeline.produceReady(kafka, topics, events);
      List<AutoCloseable> closing = new ArrayList<>();
      try (Running a = new Running(config, "dispatcher-a", withCost(Providers.http(config), costs),
              Providers.redisLeak(config, closing), new DispatchListener() { });
           Running b = new Running(config, "dispatcher-b", withCost(Providers.http(config), costs),
              Providers.redisLeak(config, closing), new DispatchListener() { })) {
        Await.until(EVENTS + " calls", Duration.ofSeconds(90), () -> mock.callCount() >= EVENTS);
      } finally {
        for (AutoCloseable c : closing) {
          c.close();
        }
      }
      List<MockProvider.Call> calls = mock.calls();
      long tooMany = calls.stream().filter(c -> c.status() == 429).count();
      long[] at = calls.stream().mapToLong(MockProvider.Call::atNanos).sorted().toArray();
      long[] firstTenSeconds = java.util.Arrays.stream(at)
          .filter(t -> t < at[0] + Duration.ofSeconds(10).toNanos()).toArray();
      long costFirstTen = calls.stream()
          .filter(c -> c.atNanos() < at[0] + Duration.ofSeconds(10).toNanos())
          .mapToLong(c -> costs.get(c.idempotencyKey())).sum();
      System.out.printf("strict provider (20/1s, 100/10s, 300 cost/10s), 2 instances: %d calls; "
              + "worst 1 s %d, worst 10 s %d; cost in the first 10 s %d (%d calls); 429s %d%n",
          at.length, Providers.maxInAnyWindow(at, Duration.ofSeconds(1)),
          Providers.maxInAnyWindow(at, Duration.ofSeconds(10)), costFirstTen,
          firstTenSeconds.length, tooMany);
      for (MockProvider.Call c : calls) {
        if (c.status() == 429) {
          long t = c.atNanos();
          System.out.printf("429 at %.3f s: accepted in the 1 s before %d, in the 10 s before %d"
                  + " (cost %d)%n", (t - at[0]) / 1e9,
              calls.stream().filter(o -> o.status() == 200 && o.atNanos() > t - 1_000_000_000L
                  && o.atNanos() <= t).count(),
              calls.stream().filter(o -> o.status() == 200 && o.atNanos() > t - 10_000_000_000L
                  && o.atNanos() <= t).count(),
              calls.stream().filter(o -> o.status() == 200 && o.atNanos() > t - 10_000_000_000L
                  && o.atNanos() <= t).mapToLong(o -> costs.get(o.idempotencyKey())).sum());
        }
      }
      assertEquals(0, tooMany, "the strict provider never had to say 429");
      // The busiest 10 s at the provider: the binding allowance (calls or cost, whichever the
      // mix of costs fills first) must be used, not merely respected.
      int busiestCalls = Providers.maxInAnyWindow(at, Duration.ofSeconds(10));
      long busiestCost = 0;
      for (MockProvider.Call end : calls) {
        busiestCost = Math.max(busiestCost, calls.stream()
            .filter(o -> o.status() == 200 && o.atNanos() > end.atNanos() - 10_000_000_000L
                && o.atNanos() <= end.atNanos())
            .mapToLong(o -> costs.get(o.idempotencyKey())).sum());
      }
      System.out.printf("busiest 10 s at the provider: %d calls of 100, cost %d of 300%n",
          busiestCalls, busiestCost);
      assertTrue(Math.max(busiestCalls / 100.0, busiestCost / 300.0) >= 0.95,
          "the binding 10 s allowance is used: " + busiestCalls + " calls, cost " + busiestCost);
    }
  }

  /** Adds each event's cost as the X-Cost attribute, which the provider config forwards. */
  private static Map<String, Provider> withCost(Map<String, Provider> providers,
      Map<String, Integer> costs) {
    Map<String, Provider> out = new HashMap<>();
    providers.forEach((name, p) -> out.put(name, new Provider() {
      @Override
      public java.util.concurrent.CompletionStage<io.sluice.dispatcher.provider.ProviderResult> call(
          ProviderCall call) {
        Map<String, String> attributes = new HashMap<>(call.attributes());
        attributes.put("X-Cost", Integer.toString(costs.getOrDefault(call.eventId(), 1)));
        return p.call(new ProviderCall(call.eventId(), call.path(), call.body(), attributes,
            call.attempt(), call.cost(), call.traceparent(), call.batchIds()));
      }

      @Override
      public void close() {
        p.close();
      }
    }));
    return out;
  }
}
