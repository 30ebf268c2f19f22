package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.sluice.config.ProviderLimit;
import io.sluice.redis.SlotMarkers;
import io.sluice.testkit.SpecTable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@link TotalSpecification} on the Lua script, on a standalone redis-server and on a 3-node
 * cluster, by the leak's own path and by the limits' path (a window that never binds), every
 * answer held exactly to the Java mirror fed the script's clock: the runs
 * {@link LeakyBucketScriptIT} gives the table (its servers, so no second cluster starts).
 */
final class TotalScriptRuns {
  private static final String[] INSTANT_FIELDS = {"last", "cut", "pause", "ts"};

  /** Something that makes a leak on Redis, and may fail doing so. */
  interface Leak {
    RedisLeakyBucket get() throws Exception;
  }

  private TotalScriptRuns() {}

  /** The runs: standalone and two providers on the cluster, each by both paths. */
  static List<SpecTable.Implementation<TotalSpecification.Step>> on(RedisLeakyBucket standalone,
      RedisClusterCommands<String, String> standaloneRedis, Leak cluster,
      RedisClusterCommands<String, String> clusterRedis) {
    List<SpecTable.Implementation<TotalSpecification.Step>> runs = new ArrayList<>();
    for (boolean limited : List.of(false, true)) {
      String path = limited ? " (limits' path)" : "";
      runs.add(new SpecTable.Implementation<>("Lua on redis-server" + path,
          () -> new ScriptRun(standalone, standaloneRedis, "spec-" + System.nanoTime(), limited)));
      for (String provider : List.of("hooks", "webhooks")) {
        runs.add(new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, provider " + provider + path,
            () -> new ScriptRun(cluster.get(), clusterRedis, provider + (limited ? "-l" : ""), limited)));
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
   * The table on the script, and alongside it the mirror fed the script's clock shifted by the
   * time the test moved the keys (every stored instant of both endpoints and the total moved
   * back by the step's advance); real time passing between steps ({@code drift}) moves the
   * table's times by as much and no decision.
   */
  private static final class ScriptRun implements SpecTable.Run<TotalSpecification.Step> {
    private final RedisLeakyBucket bucket;
    private final RedisClusterCommands<String, String> redis;
    private final ProviderTotal total;
    private final boolean limited;
    private final TotalSpecTest.Joint mirror;
    private long moved;
    private long previousNow;
    private long drift;

    ScriptRun(RedisLeakyBucket bucket, RedisClusterCommands<String, String> redis, String provider,
        boolean limited) {
      this.bucket = bucket;
      this.redis = redis;
      this.total = new ProviderTotal(provider, TotalSpecification.TOTAL_RATE);
      this.limited = limited;
      this.mirror = limited ? new TotalSpecTest.OnLimitMath() : new TotalSpecTest.OnMath();
    }

    private String lane(String endpoint) {
      return total.laneKeyName(total.provider() + "/" + endpoint);
    }

    @Override
    public void step(int index, TotalSpecification.Step step) throws Exception {
      long advance = step.advanceMillis() * 1000;
      if (advance != 0) {
        for (String key : List.of(RedisLeakyBucket.redisKey(lane("a")),
            RedisLeakyBucket.redisKey(lane("b")), RedisLeakyBucket.totalKey(total.provider()))) {
          for (String field : INSTANT_FIELDS) {
            String v = redis.hget(key, field);
            if (v != null) {
              redis.hset(key, field, Long.toString(Long.parseLong(v) - advance));
            }
          }
        }
        moved += advance;
      }
      String lane = lane(step.lane());
      SlotClaim script = limited
          ? bucket.claim(lane, new ProviderLimits(List.of(ProviderLimit.rate(step.rate()),
              TotalSpecTest.LOOSE_WINDOW)), new LimitedClaim(step.wanted(),
              TotalSpecification.LOOKAHEAD_MICROS, 1, "spec", 1_000_000), total)
              .toCompletableFuture().get(5, TimeUnit.SECONDS)
          : bucket.claim(lane, step.rate(), step.wanted(), TotalSpecification.LOOKAHEAD_MICROS,
              total).toCompletableFuture().get(5, TimeUnit.SECONDS);
      SlotClaim onTimeline = new SlotClaim(script.nowMicros() + moved, script.granted(),
          script.firstSlotMicros() + moved, script.intervalMicros(), script.retryAtMicros() + moved,
          script.rateFactor());
      assertEquals(mirror.claim(onTimeline.nowMicros(), step.lane(), step.rate(), step.wanted()),
          onTimeline, "script = math");
      drift += previousNow == 0 ? 0 : Math.max(0, onTimeline.nowMicros() - (previousNow + advance));
      previousNow = onTimeline.nowMicros();

      assertEquals(step.expectGranted(), script.granted(), "granted");
      long at = script.granted() > 0 ? script.firstSlotMicros() : script.retryAtMicros();
      assertEquals(step.expectAtMillis() * 1000, at - script.nowMicros(), drift + 1000, "at");
      assertEquals(step.expectInterval() * 1000, script.intervalMicros(), "the joint spacing");
    }
  }

}
