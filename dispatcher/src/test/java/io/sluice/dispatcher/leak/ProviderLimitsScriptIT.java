package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.codec.StringCodec;
import io.sluice.testkit.ClusterOnRedis;
import io.sluice.testkit.RealServers;
import io.sluice.testkit.SpecTable;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.LuaScript;
import io.sluice.redis.RedisConnection;
import io.sluice.redis.SlotMarkers;
import io.sluice.config.ProviderLimit;
import io.sluice.config.ProviderLimit.Kind;
import io.sluice.config.ProviderLimit.Window;
import io.sluice.config.RedisConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The multi-limit claim of {@code leaky_bucket.lua} on a real redis-server: agreeing with
 * {@link LimitMath} exactly, step by step, exact in every window, atomic, and giving back the
 * concurrency of an instance that died.
 */
@ExtendWith(RealServers.class)
class ProviderLimitsScriptIT {
  private static final LeakConfig CONFIG = new LeakConfig(0.25, 100_000_000);

  private static RedisServerProcess server;
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisCommands<String, String> redis;
  private static RedisLeakyBucket leak;

  @BeforeAll
  static void connect(RedisServerProcess shared) {
    server = shared;
    client = RedisClient.create(shared.uri());
    connection = client.connect(StringCodec.UTF8);
    redis = connection.sync();
    leak = new RedisLeakyBucket(connection.async(), CONFIG);
    // As a starting dispatcher does: a missing marker would read as lost data.
    SlotMarkers.mark(connection.async(), false).toCompletableFuture().join();
  }

  @AfterAll
  static void disconnect() throws Exception {
    connection.close();
    client.shutdown();
    CLUSTER.close();
  }

  private static <T> T await(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private static String uniqueProvider(String prefix) {
    return prefix + "-" + System.nanoTime();
  }

  /**
   * A provider whose leak has a last slot long past: without one, the script holds the first slot
   * back one lookahead (a lost key may have granted that far ahead), which is the leak's table's
   * business, not these tests'.
   */
  private static String knownProvider(String prefix) {
    String provider = uniqueProvider(prefix);
    redis.hset(RedisLeakyBucket.redisKey(provider), "last", "0");
    return provider;
  }

  private static ProviderLimit limit(Kind kind, long amount, long perMillis, Window window,
      long marginMillis) {
    return new ProviderLimit(kind, amount, Duration.ofMillis(perMillis), window,
        Duration.ofMillis(marginMillis));
  }

  /** Every kind at once, windows short enough that a second of claims crosses many. */
  private static final ProviderLimits ALL = new ProviderLimits(List.of(
      ProviderLimit.rate(400),
      limit(Kind.CALLS, 12, 100, Window.SLIDING, 5),
      limit(Kind.CALLS, 40, 500, Window.FIXED, 5),
      limit(Kind.COST, 60, 250, Window.SLIDING, 0),
      limit(Kind.COST, 150, 1000, Window.FIXED, 10),
      // Kept as sub-window counters of about a second: a 30 s run crosses many.
      limit(Kind.CALLS, 70, 61_000, Window.SLIDING, 20),
      limit(Kind.COST, 300, 61_000, Window.SLIDING, 0),
      ProviderLimit.concurrency(6)));

  @Test
  @DisplayName("agrees with LimitMath exactly on every claim, release and settle of a random sequence, every limit at once")
  void shouldAgreeWithTheMathOnEveryClaim() throws Exception {
    String provider = uniqueProvider("agree");
    LimitMath math = new LimitMath(new LeakMath(CONFIG, LeakMath.Memory.LOSABLE));
    WindowLedger mirror = new WindowLedger();
    LeakState state = LeakState.EMPTY;
    Random random = new Random(7);
    List<String> held = new ArrayList<>();
    List<long[]> slots = new ArrayList<>();
    // At least 400 steps, and on until 60 slots were granted: how many a run of 400 gets depends on
    // how much real time it spans (a fast machine crosses fewer windows), so the count of steps
    // alone does not promise the windows were exercised.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (int i = 0; i < 400 || (slots.size() < 60 && System.nanoTime() < deadline); i++) {
      long cost = 1 + random.nextInt(6);
      LimitedClaim request = new LimitedClaim(1 + random.nextInt(5), 20_000, cost, "a" + i, 300_000);
      SlotClaim script = await(leak.claim(provider, ALL, request));
      LeakMath.ClaimStep java = math.claim(state, mirror, script.nowMicros(), ALL, request);
      state = java.next();
      assertEquals(java.claim(), script, "claim " + i + ": script = math");
      for (int g = 0; g < script.granted(); g++) {
        // Half the slots carry a cheaper event than they reserved, and give the rest back.
        long actual = random.nextBoolean() ? 1 + random.nextInt((int) cost) : cost;
        await(leak.settle(provider, ALL, script.slotMicros(g), cost, actual));
        for (ProviderLimit l : ALL.beyondRate()) {
          if (l.kind() == Kind.COST) {
            mirror.settle(l, script.slotMicros(g), cost, actual);
          }
        }
        slots.add(new long[] {script.slotMicros(g), actual});
        held.add(request.leaseId(g));
      }
      while (!held.isEmpty() && random.nextInt(2) == 0) {
        String lease = held.remove(random.nextInt(held.size()));
        await(leak.release(provider, lease));
        mirror.release(lease);
      }
    }
    assertTrue(slots.size() >= 60, "granted " + slots.size() + " in 30 s");
    LimitBounds.assertEveryLimitHeld(slots, ALL);
  }

  /** {@link LimitSpecification} on the script, with windows of a minute and of an hour, agreeing with LimitMath exactly. */
  @TestFactory
  Stream<DynamicContainer> limitSpecification() {
    List<SpecTable.Implementation<LimitSpecification.Step>> implementations = new ArrayList<>(List.of(
        new SpecTable.Implementation<>("Lua on redis-server",
            () -> onScript(LimitSpecification.LIMITS, ProviderLimitsScriptIT::standaloneRunning, redis,
                knownProvider("table"))),
        new SpecTable.Implementation<>("Lua on redis-server, windows of an hour (sub-window counters)",
            () -> onScript(LimitSpecification.COARSE_LIMITS, ProviderLimitsScriptIT::standaloneRunning, redis,
                knownProvider("table")))));
    // Providers in different slots, each its own run (a leak with a last slot long past).
    for (String provider : new String[] {"payments-api", "mail-api"}) {
      implementations.add(new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, provider " + provider, () -> {
        String p = provider + "-" + System.nanoTime();
        RedisConnection onCluster = CLUSTER.once(RedisConnection.class, LeakyBucketScriptIT::connectionTo);
        CLUSTER.redis().hset(RedisLeakyBucket.redisKey(p), "last", "0");
        return onScript(LimitSpecification.LIMITS,
            script -> new RedisLeakyBucket(onCluster.commands(), script, CONFIG), CLUSTER.redis(), p);
      }));
    }
    return LimitSpecTest.TABLE.over(implementations);
  }

  /** One 3-node cluster for the class, started by the first test that needs it. */
  private static final ClusterOnRedis CLUSTER = new ClusterOnRedis();

  /** The leak on the cluster, one for the class. */
  private static RedisLeakyBucket clusterLeak() throws Exception {
    return CLUSTER.once(RedisLeakyBucket.class, LeakyBucketScriptIT::leakOn);
  }

  /** A leak on the standalone redis-server running {@code script}. */
  private static RedisLeakyBucket standaloneRunning(LuaScript script) {
    return new RedisLeakyBucket(connection.async(), script, CONFIG);
  }

  /**
   * The table on the script for {@code provider} (a leak with a last slot long past), every row at
   * one instant of the table ({@link LuaScript#atTime}: the table has no advance, and real time
   * between rows moved the slots; a slot was checked to be the table's or later, now exactly, as
   * on the math; issue 34, 11), and LimitMath fed the script's clock beside it: every answer the
   * same.
   */
  private static LimitSpecification.SubjectRun onScript(ProviderLimits limits,
      Function<LuaScript, RedisLeakyBucket> running, RedisClusterCommands<String, String> redis,
      String provider) {
    RedisLeakyBucket leak = running.apply(LeakyBucketScript.load().atTime(System.currentTimeMillis() * 1000));
    LimitMath math = new LimitMath(new LeakMath(CONFIG, LeakMath.Memory.LOSABLE));
    LeakState[] state = {new LeakState(0, 1, LeakState.NEVER, LeakState.NEVER, LeakState.NEVER)};
    return new LimitSpecification.SubjectRun(new LimitSpecification.Subject() {
      private WindowLedger mirror = new WindowLedger();
      /** When the provider's keys were found lost: 0 never, -1 at the next claim (the script's). */
      private long lostAt;

      @Override
      public SlotClaim claim(LimitedClaim request) throws Exception {
        SlotClaim script = await(leak.claim(provider, limits, request));
        if (lostAt < 0) {
          lostAt = script.nowMicros();
        }
        LeakMath.ClaimStep java = math.claim(state[0], mirror, script.nowMicros(), lostAt,
            limits, request);
        state[0] = java.next();
        assertEquals(java.claim(), script, "script = math");
        return script;
      }

      @Override
      public void settle(long slotMicros, long reserved, long actual) throws Exception {
        await(leak.settle(provider, limits, slotMicros, reserved, actual));
        LimitSpecification.settle(mirror, limits, slotMicros, reserved, actual);
      }

      @Override
      public void release(String leaseId) throws Exception {
        await(leak.release(provider, leaseId));
        mirror.release(leaseId);
      }

      @Override
      public void wipe() {
        List<String> keys = new ArrayList<>(List.of(RedisLeakyBucket.redisKey(provider),
            SlotMarkers.markerOf(RedisLeakyBucket.redisKey(provider))));
        // The keys of the limits this run uses (the coarse table's are not the fine table's).
        limits.beyondRate().forEach(l -> keys.add(RedisLeakyBucket.limitKey(provider, l)));
        redis.del(keys.toArray(String[]::new));
        mirror = new WindowLedger();
        state[0] = LeakState.EMPTY;
        lostAt = -1;
      }
    }, LimitSpecTest.exactly());
  }

  @Test
  @DisplayName("a day's window of a million calls: each claim reads at most 61 counters, the key holds no more, and no window of a day is over its amount")
  void shouldKeepALongWindowBounded() throws Exception {
    String provider = knownProvider("day");
    ProviderLimit day = limit(Kind.CALLS, 1_000_000, 86_400_000, Window.SLIDING, 20);
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(1_000_000), day));
    String key = RedisLeakyBucket.limitKey(provider, day);
    // A log written by a version before sub-windows: 2,000 calls an hour ago, folded once.
    long nowMicros = Long.parseLong(redis.time().get(0)) * 1_000_000;
    for (int i = 0; i < 2_000; i++) {
      long slot = nowMicros - 3_600_000_000L + i;
      redis.zadd(key, slot, slot + ":1");
    }
    int granted = 0;
    for (int i = 0; i < 200; i++) {
      granted += await(leak.claim(provider, limits,
          new LimitedClaim(50, 100_000, 1, "d" + i, 1_000_000))).granted();
    }
    assertEquals("hash", redis.type(key), "the old log became sub-window counters");
    assertTrue(redis.hlen(key) <= 62, redis.hlen(key) + " fields");
    long counted = redis.hvals(key).stream().mapToLong(Long::parseLong).sum();
    assertEquals(2_000 + granted, counted, "every call, old and new, is counted");

    ProviderLimits tight = new ProviderLimits(List.of(ProviderLimit.rate(1_000_000),
        limit(Kind.CALLS, 2_000 + granted, 86_400_000, Window.SLIDING, 20)));
    assertEquals(0, await(leak.claim(provider, tight,
        new LimitedClaim(1, 100_000, 1, "over", 1_000_000))).granted(),
        "a window of a day holding its amount grants nothing more");
  }

  @Test
  @DisplayName("exact in every window with concurrent claimers on two connections")
  void shouldHoldEveryWindowAcrossConcurrentClaimers() throws Exception {
    String provider = uniqueProvider("race");
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(1000),
        limit(Kind.CALLS, 15, 100, Window.SLIDING, 0),
        limit(Kind.COST, 100, 300, Window.FIXED, 5)));
    try (RedisConnection a = RedisConnection.open(new RedisConfig(server.uri()));
         RedisConnection b = RedisConnection.open(new RedisConfig(server.uri()))) {
      List<RedisLeakyBucket> instances = List.of(new RedisLeakyBucket(a.commands(), CONFIG),
          new RedisLeakyBucket(b.commands(), CONFIG));
      ExecutorService pool = Executors.newFixedThreadPool(6);
      try {
        List<Future<List<long[]>>> perThread = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
          RedisLeakyBucket instance = instances.get(t % 2);
          int seed = t;
          perThread.add(pool.submit(() -> {
            Random random = new Random(seed);
            List<long[]> slots = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
              long cost = 1 + random.nextInt(5);
              SlotClaim c = await(instance.claim(provider, limits,
                  new LimitedClaim(1 + random.nextInt(3), 10_000, cost, "t" + seed + "-" + i, 1_000_000)));
              for (int k = 0; k < c.granted(); k++) {
                slots.add(new long[] {c.slotMicros(k), cost});
              }
            }
            return slots;
          }));
        }
        List<long[]> all = new ArrayList<>();
        for (Future<List<long[]>> f : perThread) {
          all.addAll(f.get(60, TimeUnit.SECONDS));
        }
        all.sort((x, y) -> Long.compare(x[0], y[0]));
        assertTrue(all.size() >= 15, "granted " + all.size());
        LimitBounds.assertEveryLimitHeld(all, limits);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  @DisplayName("a claim refused by one limit consumes nothing in any other")
  void shouldConsumeNothingWhenOneLimitRefuses() throws Exception {
    String provider = knownProvider("atomic");
    ProviderLimit calls = limit(Kind.CALLS, 100, 60_000, Window.SLIDING, 0);
    ProviderLimit fixedCalls = limit(Kind.CALLS, 100, 60_000, Window.FIXED, 0);
    ProviderLimit cost = limit(Kind.COST, 5, 60_000, Window.SLIDING, 0);
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(100), calls, fixedCalls,
        cost, ProviderLimit.concurrency(10)));
    assertEquals(1, await(leak.claim(provider, limits, new LimitedClaim(1, 0, 3, "x", 60_000_000))).granted());
    String last = redis.hget(RedisLeakyBucket.redisKey(provider), "last");
    for (int i = 0; i < 5; i++) {
      SlotClaim refused = await(leak.claim(provider, limits, new LimitedClaim(3, 200_000, 3, "y" + i, 60_000_000)));
      assertEquals(0, refused.granted(), "3 + 3 > 5 cost units");
    }
    assertEquals(1, redis.zcard(RedisLeakyBucket.limitKey(provider, calls)));
    assertEquals(List.of("1"), redis.hvals(RedisLeakyBucket.limitKey(provider, fixedCalls)));
    assertEquals(1, redis.zcard(RedisLeakyBucket.limitKey(provider, cost)));
    assertEquals(1, redis.zcard(RedisLeakyBucket.limitKey(provider, ProviderLimit.concurrency(10))));
    assertEquals(last, redis.hget(RedisLeakyBucket.redisKey(provider), "last"), "the leak did not move");
  }

  @Test
  @DisplayName("the concurrency an instance held comes back when it dies, once its leases expire")
  void shouldGiveBackTheConcurrencyOfADeadInstance() throws Exception {
    String provider = knownProvider("dead");
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(1000),
        ProviderLimit.concurrency(3)));
    try (RedisConnection dying = RedisConnection.open(new RedisConfig(server.uri()))) {
      RedisLeakyBucket doomed = new RedisLeakyBucket(dying.commands(), CONFIG);
      // 300 ms leases: the call timeout of a provider this instance will never finish.
      assertEquals(3, await(doomed.claim(provider, limits, new LimitedClaim(3, 10_000, 1, "dead", 300_000))).granted());
    } // the instance is gone without releasing anything
    SlotClaim blocked = await(leak.claim(provider, limits, new LimitedClaim(1, 10_000, 1, "live0", 300_000)));
    assertEquals(0, blocked.granted(), "its three leases are still live");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    SlotClaim c;
    int i = 1;
    int regained = 0;
    do {
      c = await(leak.claim(provider, limits, new LimitedClaim(3, 10_000, 1, "live" + i++, 300_000)));
      regained += c.granted();
    } while (regained < 3 && System.nanoTime() < deadline);
    assertEquals(3, regained, "every lease of the dead instance expired");
    long waited = c.nowMicros() - blocked.nowMicros();
    assertTrue(waited < 1_000_000, "within a lease and the retry interval: " + waited + " us");
  }

  @Test
  @DisplayName("a released lease is free for the next claim at once")
  void shouldFreeAReleasedLease() throws Exception {
    String provider = knownProvider("release");
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(1000),
        ProviderLimit.concurrency(1)));
    LimitedClaim first = new LimitedClaim(1, 10_000, 1, "one", 60_000_000);
    assertEquals(1, await(leak.claim(provider, limits, first)).granted());
    assertEquals(0, await(leak.claim(provider, limits, new LimitedClaim(1, 10_000, 1, "two", 60_000_000))).granted());
    await(leak.release(provider, first.leaseId(0)));
    assertEquals(1, await(leak.claim(provider, limits, new LimitedClaim(1, 10_000, 1, "three", 60_000_000))).granted());
  }

  @Test
  @DisplayName("every key of one provider's claim is in one slot of a Redis Cluster")
  void shouldRunInACluster() throws Exception {
    RedisLeakyBucket clusterLeak = clusterLeak();
    for (String provider : new String[] {"payments-api", "mail-api", "sms-api", "maps-api"}) {
      List<long[]> slots = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        SlotClaim c = await(clusterLeak.claim(provider, ALL, new LimitedClaim(3, 20_000, 2, "c" + i, 1_000_000)));
        for (int k = 0; k < c.granted(); k++) {
          slots.add(new long[] {c.slotMicros(k), 2});
        }
      }
      assertTrue(!slots.isEmpty(), provider);
      LimitBounds.assertEveryLimitHeld(slots, ALL);
    }
  }
}
