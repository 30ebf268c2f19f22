package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.LuaScript;
import io.sluice.redis.SlotMarkers;
import io.sluice.testkit.RealServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link QuotaBoundProperties}' histories on {@code token_bucket.lua} and, for a tenant with a
 * per-attribute rule, on {@code quota_rules.lua}, on a real redis-server, each call at exactly the
 * history's time ({@link FrozenTimeScript}: no assumption about how long the machine takes between
 * calls), a wipe deleting the buckets and their slot's marker as a lost slot does: every answer
 * equal to the Java mirror's, and what the script admits within {@code capacity + refill * T} in
 * every window, for each rule (across a change of rate, the documented bound: {@link
 * ChangingRateBound}).
 */
@ExtendWith(RealServers.class)
class QuotaBoundScriptIT {
  /** Histories run: each call loads a script of its own (its clock frozen), so not thousands. */
  private static final int HISTORIES = 30;

  @Test
  void theScriptAdmitsWhatTheMirrorDoesWithinTheBoundInEveryWindow(RedisServerProcess server)
      throws Exception {
    try (StoreOnRedis on = StoreOnRedis.open(server)) {
      forEachHistory(on, name -> new BucketKey("bound-api", name).redisKey(), (history, name, start) -> QuotaBound.firstExcess(QuotaBound.play(history,
          new ScriptBucket(on, new BucketKey("bound-api", name)), start), history));
    }
  }

  @Test
  void theRulesScriptAdmitsWhatTheMirrorDoesWithinEachRulesBoundInEveryWindow(
      RedisServerProcess server) throws Exception {
    try (StoreOnRedis on = StoreOnRedis.open(server)) {
      forEachHistory(on, RuleKeys::overall, (history, name, start) -> {
        List<long[]> changes = new ArrayList<>();
        return RulesBound.firstExcess(RulesBound.play(history, new RulesScriptBucket(on, name), name, start,
            changes), history, changes);
      });
    }
  }

  /** What one history admits beyond its bound, played under {@code name} from {@code start}. */
  private interface Played {
    Optional<String> excess(QuotaHistory history, String name, long startMicros) throws Exception;
  }

  /**
   * Plays every history on a bucket of its own, {@code keyOf(name)}, its slot marked intact first
   * as a gate's start marks it. Two histories' buckets can share a slot (30 names among 16,384
   * slots: about one run in forty), and a history's wipe deletes its slot's marker: the next
   * history in that slot then found its new bucket "lost" and rebuilt it empty, while the mirror,
   * rightly, started it full (CI found it twice, as "the script refuses what the mirror grants";
   * {@code -Dquota.bound.run=899} replays it: seeds 1 and 12 share a slot, 1 wipes). In the product
   * every bucket of a wiped slot is rebuilt so; here each history is a Redis of its own.
   */
  private static void forEachHistory(StoreOnRedis on, Function<String, String> keyOf, Played played)
      throws Exception {
    String run = System.getProperty("quota.bound.run", Long.toString(System.nanoTime()));
    long start = Long.getLong("quota.bound.start", System.currentTimeMillis() * 1000);
    // Seeds 1..HISTORIES, and the histories QuotaBoundProperties keeps as reproducers.
    List<Long> seeds = new ArrayList<>(LongStream.rangeClosed(1, HISTORIES).boxed().toList());
    seeds.addAll(List.of(QuotaBoundProperties.A_CUT_WITHIN_A_REACH_AFTER_A_LOSS,
        QuotaBoundProperties.A_LOSS_WITHIN_A_REACH_AFTER_A_CUT));
    for (long seed : seeds) {
      QuotaHistory history = QuotaHistory.of(seed);
      long s = seed;
      String name = "bound-" + run + "-" + seed;
      on.redis().set(SlotMarkers.markerOf(keyOf.apply(name)), "0");
      assertEquals(Optional.empty(), played.excess(history, name, start),
          () -> "seed " + s + " (replay: -Dquota.bound.run=" + run + " -Dquota.bound.start=" + start + "), "
              + history);
    }
  }

  /** {@code token_bucket.lua} at the history's times, the mirror beside it: their answers agree. */
  private record ScriptBucket(StoreOnRedis on, BucketKey key, LuaScript shipped,
      QuotaBucket.Mirror mirror) implements QuotaBucket {
    ScriptBucket(StoreOnRedis on, BucketKey key) {
      this(on, key, TokenBucketScript.load(), new QuotaBucket.Mirror());
    }

    @Override
    public Acquisition acquire(BucketSpec spec, AcquireRequest request, long nowMicros) throws Exception {
      Acquisition a = new LettuceTokenBucketStore(on.connection().async(),
          FrozenTimeScript.at(shipped, nowMicros)).acquire(key, spec, request)
          .toCompletableFuture().get(5, TimeUnit.SECONDS);
      Acquisition m = mirror.acquire(spec, request, nowMicros);
      String at = "script = mirror at " + nowMicros + ", " + request;
      assertEquals(m.granted(), a.granted(), at);
      assertEquals(m.levelBefore(), a.levelBefore(), 1e-6, at);
      assertEquals(m.ticketMicros(), a.ticketMicros(), 1, at);
      assertEquals(m.leaseId(), a.leaseId(), at);
      assertEquals(m.leaseEndMicros(), a.leaseEndMicros(), at);
      assertEquals(m.lineEndMicros(), a.lineEndMicros(), 1, at);
      return a;
    }

    @Override
    public void wipe() {
      on.redis().del(key.redisKey(), SlotMarkers.markerOf(key.redisKey()));
      mirror.wipe();
    }

    @Override
    public long updatedMicros() {
      return mirror.updatedMicros(); // the script's, which equals the mirror's at every call
    }
  }

  /** {@code quota_rules.lua} at the history's times, the mirror beside it: their answers agree. */
  private record RulesScriptBucket(StoreOnRedis on, String tenant, LuaScript shipped,
      RulesBucket.Mirror mirror) implements RulesBucket {
    RulesScriptBucket(StoreOnRedis on, String tenant) {
      this(on, tenant, QuotaRulesScript.load(), new RulesBucket.Mirror());
    }

    @Override
    public RulesAcquisition acquire(TokenBucketStore.RulesCall call, long nowMicros) throws Exception {
      RulesAcquisition a = new LettuceTokenBucketStore(on.connection().async(), TokenBucketScript.load(),
          FrozenTimeScript.at(shipped, nowMicros)).acquireAllBatch(List.of(call))
          .toCompletableFuture().get(5, TimeUnit.SECONDS).get(0);
      RulesAcquisition m = mirror.acquire(call, nowMicros);
      String at = "script = mirror at " + nowMicros + ", " + call;
      assertEquals(m.granted(), a.granted(), at);
      assertEquals(m.waitMicros(), a.waitMicros(), 1, at);
      assertEquals(m.leaseUnits(), a.leaseUnits(), at);
      assertEquals(m.leaseEndMicros(), a.leaseEndMicros(), at);
      return a;
    }

    @Override
    public void wipe() {
      on.redis().del(RuleKeys.overall(tenant), RuleKeys.rule(tenant, RulesBound.ATTRIBUTE),
          SlotMarkers.markerOf(RuleKeys.overall(tenant)));
      mirror.wipe();
    }

    @Override
    public long updatedMicros(String redisKey) {
      return mirror.updatedMicros(redisKey); // the script's, which equals the mirror's at every call
    }
  }
}
