package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.LaneId;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.fair.JainIndex;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.ResponseHeaders;
import io.sluice.testkit.FakeClock;
import io.sluice.schemas.event.WorkEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * Two instances' lanes sharing one provider, on a fake clock: one leak (the in-process one, which
 * both claim from, as both would claim from the Redis one) and one board of busy tenants. Tier
 * gold (weight 8) has ten tenants and free (weight 1) ten; instance A holds 3 gold and 5 free
 * tenants, B the other 7 gold and 5 free, every one with a backlog. What is judged is the calls
 * each tenant got.
 */
class SharedProviderFairnessTest {
  private static final double RATE = 100;
  private static final Map<String, Double> WEIGHTS = Map.of("gold", 8.0, "free", 1.0);

  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final ManualTimer timer = new ManualTimer(clock);
  private final LocalLeakyBucket leak = new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1,
      clock::micros);
  private final Map<String, Integer> calls = new HashMap<>();
  private final List<Long> callTimes = new ArrayList<>();

  @Test
  void shouldGiveEveryBusyTenantOfATierTheSameCallsWhicheverInstanceHoldsIt() {
    LeakyBucket shared = sharedBoard(leak);
    run(shared);

    for (String tier : WEIGHTS.keySet()) {
      double jain = JainIndex.of(callsOf(tier));
      assertTrue(jain >= 0.99, tier + ": Jain's index " + jain + " over " + callsOf(tier));
    }
    double gold = callsOf("gold").stream().mapToInt(Integer::intValue).sum();
    double free = callsOf("free").stream().mapToInt(Integer::intValue).sum();
    assertEquals(8.0 / 9, gold / (gold + free), 0.03 * 8 / 9, "gold's share of the calls");
  }

  @Test
  void shouldFavourTheTenantsOfTheInstanceHoldingFewerWhenInstancesDoNotShareTheirCounts() {
    // The control: each lane believes it is alone (the default), as before instances shared.
    run(leak);
    assertTrue(JainIndex.of(callsOf("gold")) < 0.95, "gold: " + callsOf("gold"));
  }

  @Test
  void shouldKeepTheLeakFullWhileSharing() {
    run(sharedBoard(leak));
    long from = callTimes.get(0) + 2_000_000_000L;
    long inWindow = callTimes.stream().filter(t -> t >= from && t < from + 10_000_000_000L).count();
    assertTrue(inWindow >= 0.99 * RATE * 10 && inWindow <= RATE * 10 + 1,
        inWindow + " calls in 10 s at " + RATE + "/s");
  }

  private void run(LeakyBucket bucket) {
    ProviderLane a = lane(bucket);
    ProviderLane b = lane(bucket);
    // 250 entries each: more than any tenant can be sent in the run, gold's 8/90 of 1,500 calls.
    for (int i = 0; i < 250; i++) {
      for (int t = 0; t < 10; t++) {
        (t < 3 ? a : b).offer(entry("gold-" + t, "gold", i));
        (t < 5 ? a : b).offer(entry("free-" + t, "free", i));
      }
    }
    timer.advance(Duration.ofSeconds(15));
    a.close();
    b.close();
  }

  private List<Integer> callsOf(String tier) {
    List<Integer> n = new ArrayList<>();
    for (int t = 0; t < 10; t++) {
      n.add(calls.getOrDefault(tier + "-" + t, 0));
    }
    return n;
  }

  private ProviderLane lane(LeakyBucket bucket) {
    return new ProviderLane(
        new ProviderLane.Settings(LaneId.provider("api"), 0, 8, 100_000,
            WEIGHTS, 5_000),
        new ProviderLane.Calls(LimitSource.fixed(ProviderLimits.rateOnly(RATE)), call -> {
          calls.merge(call.eventId().substring(0, call.eventId().lastIndexOf('-')), 1, Integer::sum);
          callTimes.add(clock.nanos());
          return CompletableFuture.completedFuture(
              new ProviderResult.Answered(200, null, ResponseHeaders.NONE));
        }, bucket),
        new LaneHooks(timer, (lane, entry, result, claimedAtMicros) -> Settlement.NONE, DispatchListener.NONE, (entry, why) -> { }, clock::nanos,
            Pace.FULL));
  }

  private static DispatchEntry entry(String tenant, String tier, int i) {
    String id = tenant + "-" + i;
    String json = "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"api\"}";
    return new DispatchEntry(new TopicPartition("ready", 0), i, 1, tenant.getBytes(UTF_8),
        json.getBytes(UTF_8), new RecordHeaders(), new WorkEvent(id, tenant, "api", 1, null,
        null, null, Map.of()), tier, 0, null);
  }

  /** The leak, with the busy counts of every member kept and summed as the Redis script does. */
  private static LeakyBucket sharedBoard(LeakyBucket leak) {
    Map<String, Map<String, Integer>> members = new HashMap<>();
    return new PublishingLeak(leak, (member, busyByTier) -> {
      members.put(member, Map.copyOf(busyByTier));
      Map<String, Integer> sums = new HashMap<>();
      members.values().forEach(m -> m.forEach((tier, n) -> sums.merge(tier, n, Integer::sum)));
      return CompletableFuture.completedFuture(sums);
    });
  }
}
