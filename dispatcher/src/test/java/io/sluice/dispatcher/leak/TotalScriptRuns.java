package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.cluster.SlotHash;
import io.sluice.config.ProviderLimit;
import io.sluice.redis.LuaScript;
import io.sluice.redis.SlotMarkers;
import io.sluice.testkit.SpecTable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link TotalSpecification} on the Lua script, on a standalone redis-server and on a 3-node
 * cluster, by the leak's own path and by the limits' path (a window that never binds), every
 * answer held exactly to the Java mirror fed the script's clock, each row at exactly the table's
 * time ({@link LuaScript#atTime}): the runs {@link LeakyBucketScriptIT} gives the table (its
 * servers, so no second cluster starts).
 */
final class TotalScriptRuns {
  /** Makes a leak on Redis running {@code script}, and may fail doing so. */
  interface Leak {
    RedisLeakyBucket running(LuaScript script) throws Exception;
  }

  private TotalScriptRuns() {}

  /** The runs: standalone and two providers on the cluster, each by both paths. */
  static List<SpecTable.Implementation<TotalSpecification.Step>> on(Leak standalone, Leak cluster) {
    List<SpecTable.Implementation<TotalSpecification.Step>> runs = new ArrayList<>();
    for (boolean limited : List.of(false, true)) {
      String path = limited ? " (limits' path)" : "";
      runs.add(new SpecTable.Implementation<>("Lua on redis-server" + path,
          () -> new ScriptRun(standalone, "spec-" + System.nanoTime(), limited)));
      for (String provider : List.of("hooks", "webhooks")) {
        runs.add(new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, provider " + provider + path,
            () -> new ScriptRun(cluster, provider + (limited ? "-l" : ""), limited)));
      }
    }
    return runs;
  }

  /** An endpoint's keys under a total are in the total's cluster slot; without one, in their own. */
  static void assertKeysInTheTotalsSlot() {
    ProviderTotal total = new ProviderTotal("hooks", 40);
    String lane = total.laneKeyName("hooks/acme");
    assertEquals("sluice:v1:{hooks}/acme:leak", RedisLeakyBucket.redisKey(lane));
    int slot = SlotHash.getSlot(RedisLeakyBucket.totalKey("hooks"));
    assertEquals(slot, SlotHash.getSlot(RedisLeakyBucket.redisKey(lane)));
    assertEquals(slot, SlotHash.getSlot(RedisLeakyBucket.limitKey(lane, TotalSpecTest.LOOSE_WINDOW)));
    assertEquals(slot, SlotHash.getSlot(SlotMarkers.markerOf(RedisLeakyBucket.redisKey(lane))));
    assertTrue(SlotHash.getSlot(RedisLeakyBucket.redisKey("hooks/acme")) != slot,
        "without a total the lane keeps its own tag");
  }

  /**
   * The table on the script, each row at exactly the table's time (no stored instant moved, no
   * real time between rows on the timeline; issue 34, 11), and alongside it the mirror fed the
   * script's clock.
   */
  private static final class ScriptRun implements SpecTable.Run<TotalSpecification.Step> {
    private final Leak leak;
    private final ProviderTotal total;
    private final boolean limited;
    private final TotalSpecTest.Joint mirror;
    private final LuaScript shipped = LeakyBucketScript.load();
    /** The table's clock, microseconds: from now, moved only by the rows. */
    private long clock = System.currentTimeMillis() * 1000;

    ScriptRun(Leak leak, String provider, boolean limited) {
      this.leak = leak;
      this.total = new ProviderTotal(provider, TotalSpecification.TOTAL_RATE);
      this.limited = limited;
      this.mirror = limited ? new TotalSpecTest.OnLimitMath() : new TotalSpecTest.OnMath();
    }

    private String lane(String endpoint) {
      return total.laneKeyName(total.provider() + "/" + endpoint);
    }

    @Override
    public void step(int index, TotalSpecification.Step step) throws Exception {
      clock += step.advanceMillis() * 1000;
      RedisLeakyBucket bucket = leak.running(shipped.atTime(clock));
      String lane = lane(step.lane());
      SlotClaim script = limited
          ? bucket.claim(lane, new ProviderLimits(List.of(ProviderLimit.rate(step.rate()),
              TotalSpecTest.LOOSE_WINDOW)), new LimitedClaim(step.wanted(),
              TotalSpecification.LOOKAHEAD_MICROS, 1, "spec", 1_000_000), total)
              .toCompletableFuture().get(5, TimeUnit.SECONDS)
          : bucket.claim(lane, step.rate(), step.wanted(), TotalSpecification.LOOKAHEAD_MICROS,
              total).toCompletableFuture().get(5, TimeUnit.SECONDS);
      assertEquals(mirror.claim(script.nowMicros(), step.lane(), step.rate(), step.wanted()),
          script, "script = math");

      assertEquals(step.expectGranted(), script.granted(), "granted");
      long at = script.granted() > 0 ? script.firstSlotMicros() : script.retryAtMicros();
      assertEquals(step.expectAtMillis() * 1000, at - script.nowMicros(), 1000, "at");
      assertEquals(step.expectInterval() * 1000, script.intervalMicros(), "the joint spacing");
    }
  }

}
