package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.dispatch.lane.Settlement;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.ProviderConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.lane.ManualTimer;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitedClaim;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.leak.ProviderTotal;
import io.sluice.dispatcher.leak.SlotClaim;
import io.sluice.dispatcher.leak.ThrottleDecision;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.testkit.FakeClock;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A per-tenant provider's {@code totalRate} through the endpoint lanes, on a fake clock with the
 * in-process leak: four endpoints at 10/s each under a total of 8/s, two of tier gold (weight 3)
 * and two of std (weight 1), all backlogged. The total holds in every second, each endpoint's
 * spacing holds, and the tiers share the total 3:1.
 */
class EndpointTotalsTest {
  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final ManualTimer timer = new ManualTimer(clock);
  private static final String CONFIG = """
      tiers: { gold: { weight: 3 }, std: { weight: 1 } }
      defaultTier: std
      providers:
        hooks:
          endpoints: perTenant
          allowPrivateNetworks: true
          allowPlainHttp: true
          rate: 10/s
          totalRate: 8/s
          quotas: { gold: { capacity: 10, refill: 1/s }, std: { capacity: 10, refill: 1/s } }
      tenants:
        g1: { tier: gold, endpoints: { hooks: "http://127.0.0.1:9/g1" } }
        g2: { tier: gold, endpoints: { hooks: "http://127.0.0.1:9/g2" } }
        s1: { endpoints: { hooks: "http://127.0.0.1:9/s1" } }
        s2: { endpoints: { hooks: "http://127.0.0.1:9/s2" } }
      """;
  private final SluiceConfig config = ConfigLoader.parse(CONFIG, Map.of());
  private final ProviderConfig hooks = config.providers().get("hooks");
  /** Per endpoint, the fake time of each call, in milliseconds. */
  private final Map<String, List<Long>> calls = new HashMap<>();

  private final Provider provider = new Provider() {
    @Override
    public CompletionStage<ProviderResult> call(ProviderCall call) {
      throw new AssertionError("the provider's own URL is never called");
    }

    @Override
    public Provider toward(URI endpoint) {
      return call -> {
        calls.computeIfAbsent(endpoint.getPath(), p -> new ArrayList<>()).add(clock.millis());
        return CompletableFuture.completedFuture(new ProviderResult.Answered(200, null));
      };
    }
  };

  private final TenantEndpoints endpoints = new TenantEndpoints(EndpointParts.of(
      Map.of("hooks", provider),
      new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros),
      LimitLearner.local(DispatchListener.NONE), timer, (lane, entry, result, claimedAt) -> Settlement.NONE,
      (entry, why) -> {}, DispatchListener.NONE, clock, clock::nanos,
      100_000, 1000), Map.of("gold", 3.0, "std", 1.0));

  @Test
  @DisplayName("endpoints under a total: never above it, each at its own spacing, tiers by weight")
  void shouldCapEveryEndpointTogetherAndShareTheTotalByTierWeight() {
    Map<String, String> tiers = Map.of("g1", "gold", "g2", "gold", "s1", "std", "s2", "std");
    int n = 0;
    for (int step = 0; step < 400; step++) {
      // Every endpoint kept busy: its lane topped up to what it queues (a backlog waits parked).
      for (Map.Entry<String, String> t : tiers.entrySet()) {
        while (true) {
          DispatchEntry e = entry("e" + n++, t.getKey(), t.getValue());
          ProviderLane lane = assertInstanceOf(LaneRoute.Queue.class,
              endpoints.route(e, hooks, config)).lane();
          if (lane.queued() >= lane.capacity()) {
            break;
          }
          lane.offer(e);
        }
      }
      endpoints.tick(clock.millis());
      timer.advance(Duration.ofMillis(50));
    }
    long from = 1_000_000 + 5_000;
    long to = from + 15_000;
    List<Long> all = new ArrayList<>();
    Map<String, Integer> steady = new HashMap<>();
    calls.forEach((path, at) -> {
      all.addAll(at);
      steady.put(path.substring(1), (int) at.stream().filter(t -> t >= from && t < to).count());
      for (int i = 1; i < at.size(); i++) {
        assertTrue(at.get(i) - at.get(i - 1) >= 100, path + "'s own spacing, 100 ms: " + at);
      }
    });
    all.sort(null);
    for (int i = 8; i < all.size(); i++) {
      assertTrue(all.get(i) - all.get(i - 8) >= 1000, "at most 8 calls in any second: " + all);
    }
    System.out.println("endpoints under a total of 8/s, calls in 15 s of the steady state: " + steady);
    int gold = steady.get("g1") + steady.get("g2");
    int std = steady.get("s1") + steady.get("s2");
    assertEquals(8 * 15, gold + std, 2, "the total used whole: " + steady);
    assertEquals(0.75, gold / (double) (gold + std), 0.75 * 0.05, "gold's part, by weight: " + steady);
    assertEquals(steady.get("g1"), steady.get("g2"), 2, "equal within a tier: " + steady);
    assertEquals(steady.get("s1"), steady.get("s2"), 2, "equal within a tier: " + steady);
  }

  @Test
  @DisplayName("with another instance holding two busy gold endpoints, this one shares out its part of the total")
  void shouldShareOutOnlyThisInstancesPartOfTheTotal() {
    LocalLeakyBucket local = new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros);
    // The sums Redis would answer: this instance's counts and another's two busy gold endpoints.
    LeakyBucket shared = new LeakyBucket() {
      @Override
      public CompletionStage<SlotClaim> claim(String lane, double rate, int wanted, long lookahead) {
        return local.claim(lane, rate, wanted, lookahead);
      }

      @Override
      public CompletionStage<SlotClaim> claim(String lane, double rate, int wanted, long lookahead,
          ProviderTotal total) {
        return local.claim(lane, rate, wanted, lookahead, total);
      }

      @Override
      public CompletionStage<ThrottleDecision> throttle(String lane, double rate, long retryAfter,
          long startedAt) {
        return local.throttle(lane, rate, retryAfter, startedAt);
      }

      @Override
      public CompletionStage<SlotClaim> claim(String lane, ProviderLimits limits, LimitedClaim request) {
        return local.claim(lane, limits, request);
      }

      @Override
      public CompletionStage<Void> release(String lane, String leaseId) {
        return local.release(lane, leaseId);
      }

      @Override
      public CompletionStage<Void> settle(String lane, ProviderLimits limits, long slot, long reserved,
          long actual) {
        return local.settle(lane, limits, slot, reserved, actual);
      }

      @Override
      public CompletionStage<Map<String, Integer>> busyTenants(String provider, String member,
          Map<String, Integer> busyByTier, long ttlMicros) {
        Map<String, Integer> sums = new HashMap<>(busyByTier);
        if (provider.equals("hooks")) {
          sums.merge("gold", 2, Integer::sum);
        }
        return CompletableFuture.completedFuture(sums);
      }
    };
    TenantEndpoints here = new TenantEndpoints(EndpointParts.of(Map.of("hooks", provider),
        shared, LimitLearner.local(DispatchListener.NONE), timer, (lane, entry, result, at) -> Settlement.NONE,
        (entry, why) -> {}, DispatchListener.NONE, clock, clock::nanos,
        100_000, 1000), Map.of("gold", 3.0, "std", 1.0));
    Map<String, String> tiers = Map.of("g1", "gold", "g2", "gold", "s1", "std", "s2", "std");
    int n = 0;
    for (int k = 0; k < 20; k++) {
      for (Map.Entry<String, String> t : tiers.entrySet()) {
        DispatchEntry e = entry("e" + n++, t.getKey(), t.getValue());
        assertInstanceOf(LaneRoute.Queue.class, here.route(e, hooks, config)).lane().offer(e);
      }
    }
    here.tick(clock.millis());
    timer.advance(Duration.ofMillis(300));
    here.tick(clock.millis());
    // Gold: 4 busy endpoints everywhere, 2 here; std: 2, both here. Of the 8/s, gold's 6/s is
    // 1.5/s an endpoint wherever it is, std's 2/s 1/s each: this instance takes 5/s of the 8.
    assertEquals(1.5, here.partOf("hooks/g1").orElseThrow(), 1e-9);
    assertEquals(1.5, here.partOf("hooks/g2").orElseThrow(), 1e-9);
    assertEquals(1.0, here.partOf("hooks/s1").orElseThrow(), 1e-9);
  }

  @Test
  @DisplayName("a dispatcher slowed to half its pace takes half its part of the total: the cut bites while the total binds")
  void shouldTakeThePacesShareOfItsPartOfTheTotal() {
    io.sluice.dispatcher.dispatch.lane.SetPace pace = new io.sluice.dispatcher.dispatch.lane.SetPace();
    pace.factor = 0.5;
    TenantEndpoints slowed = new TenantEndpoints(EndpointParts.of(Map.of("hooks", provider),
        new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros),
        LimitLearner.local(DispatchListener.NONE), timer, (lane, entry, result, at) -> Settlement.NONE,
        (entry, why) -> {}, DispatchListener.NONE, clock, clock::nanos,
        100_000, 1000, pace), Map.of("gold", 3.0, "std", 1.0));
    Map<String, String> tiers = Map.of("g1", "gold", "g2", "gold", "s1", "std", "s2", "std");
    int n = 0;
    for (int k = 0; k < 20; k++) {
      for (Map.Entry<String, String> t : tiers.entrySet()) {
        DispatchEntry e = entry("e" + n++, t.getKey(), t.getValue());
        assertInstanceOf(LaneRoute.Queue.class, slowed.route(e, hooks, config)).lane().offer(e);
      }
    }
    slowed.tick(clock.millis());
    timer.advance(Duration.ofMillis(300));
    slowed.tick(clock.millis());
    // Alone, this instance's part is the whole 8/s (gold 3 a endpoint, std 1); at half pace, 4/s.
    double sum = 0;
    for (String t : tiers.keySet()) {
      sum += slowed.partOf("hooks/" + t).orElseThrow();
    }
    assertEquals(4.0, sum, 1e-9, "half of the total of 8/s");
    assertEquals(1.5, slowed.partOf("hooks/g1").orElseThrow(), 1e-9, "gold still 3:1 to std");
    assertEquals(0.5, slowed.partOf("hooks/s1").orElseThrow(), 1e-9);
  }

  @Test
  @DisplayName("a reload that removes the total lifts the parts of the lanes still claiming with it")
  void shouldLiftThePartsOnceAReloadRemovedTheTotal() {
    DispatchEntry g = entry("g", "g1", "gold");
    DispatchEntry s = entry("s", "s1", "std");
    for (DispatchEntry e : List.of(g, s)) {
      for (int k = 0; k < 5; k++) {
        assertInstanceOf(LaneRoute.Queue.class, endpoints.route(e, hooks, config)).lane()
            .offer(e);
      }
    }
    endpoints.tick(clock.millis());
    assertEquals(2.0, endpoints.partOf("hooks/s1").orElseThrow(), 1e-9, "s1's part of 8/s");

    SluiceConfig reloaded = ConfigLoader.parse(CONFIG.replace("totalRate: 8/s", ""), Map.of());
    DispatchEntry other = entry("o", "g2", "gold");
    endpoints.route(other, reloaded.providers().get("hooks"), reloaded);
    timer.advance(Duration.ofMillis(300));
    endpoints.tick(clock.millis());
    assertEquals(8.0, endpoints.partOf("hooks/s1").orElseThrow(), 1e-9,
        "the whole total: no cap left on a lane opened before the reload");
  }

  private static DispatchEntry entry(String id, String tenant, String tier) {
    String json = "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"hooks\"}";
    return new DispatchEntry(new TopicPartition("ready", 0), 0, 1, tenant.getBytes(UTF_8),
        json.getBytes(UTF_8), new RecordHeaders(), new WorkEvent(id, tenant, "hooks", 1, null,
        null, null, Map.of()), tier, 0, null);
  }
}
