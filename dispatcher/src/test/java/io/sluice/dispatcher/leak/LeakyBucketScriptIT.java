package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.codec.StringCodec;
import io.sluice.testkit.Await;
import io.sluice.testkit.ClusterOnRedis;
import io.sluice.testkit.RealServers;
import io.sluice.testkit.SpecTable;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.LuaScript;
import io.sluice.redis.RedisConnection;
import io.sluice.redis.SlotMarkers;
import io.sluice.config.RedisConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
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

/** The Lua script on a real redis-server, held to the same table as the Java math, and to it exactly. */
@ExtendWith(RealServers.class)
class LeakyBucketScriptIT {
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
    leak = new RedisLeakyBucket(connection.async(), LeakSpecification.CONFIG);
    // Warm up (script cache, connection, JIT), so the table's steps follow each other quickly.
    leak.claim(uniqueProvider("warm-up"), 1, 1, 0).toCompletableFuture().join();
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

  @Test
  @DisplayName("sums the busy tenants of every live member, and forgets one that withdrew or went silent")
  void shouldSumTheBusyTenantsOfEveryLiveMember() throws Exception {
    String provider = uniqueProvider("busy");
    long ttl = TimeUnit.SECONDS.toMicros(30);
    assertEquals(Map.of("gold", 3, "free", 5),
        await(leak.busyTenants(provider, "a", Map.of("gold", 3, "free", 5), ttl)));
    assertEquals(Map.of("gold", 10, "free", 5, "trial", 1),
        await(leak.busyTenants(provider, "b", Map.of("gold", 7, "trial", 1), ttl)));
    // Publishing again replaces the member's counts, it does not add to them.
    assertEquals(Map.of("gold", 8, "free", 5, "trial", 1),
        await(leak.busyTenants(provider, "b", Map.of("gold", 5, "trial", 1), ttl)));
    // Nothing queued withdraws the member at once.
    assertEquals(Map.of("gold", 5, "trial", 1),
        await(leak.busyTenants(provider, "a", Map.of(), ttl)));
    assertTrue(redis.ttl(RedisLeakyBucket.busyKey(provider)) > 0, "the hash expires when unused");

    // A member not heard from within its ttl drops out of the sums, and out of the hash.
    await(leak.busyTenants(provider, "silent", Map.of("free", 2), 1));
    Await.until("the silent member to expire", java.time.Duration.ofSeconds(5),
        () -> !leak.busyTenants(provider, "b", Map.of("gold", 5), ttl).toCompletableFuture()
            .join().containsKey("free"));
    assertEquals(List.of("b"), redis.hkeys(RedisLeakyBucket.busyKey(provider)));
  }

  /**
   * {@link LeakSpecification} on the script, on a standalone redis-server and on a 3-node cluster
   * (five providers, their keys in more than one slot, each node learning the script through the
   * NOSCRIPT fallback: checked after the last), every answer held exactly to {@link LeakMath} fed
   * the script's clock.
   */
  @TestFactory
  Stream<DynamicContainer> leakSpecification() {
    List<SpecTable.Implementation<LeakSpecification.Step>> implementations = new ArrayList<>(List.of(
        new SpecTable.Implementation<>("Lua on redis-server", () -> new ScriptRun(
            LeakyBucketScriptIT::standaloneRunning, uniqueProvider("spec")))));
    long[] clusterReloads = {0};
    // Several providers, so the keys land in different slots on different nodes; each its own run,
    // so the table's steps follow each other as quickly as on one server.
    for (String provider : CLUSTER_PROVIDERS) {
      boolean last = provider.equals(CLUSTER_PROVIDERS.get(CLUSTER_PROVIDERS.size() - 1));
      implementations.add(new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, provider " + provider,
          () -> new ScriptRun(LeakyBucketScriptIT::clusterRunning, provider) {
            @Override
            public void close() throws Exception {
              clusterReloads[0] += reloads;
              if (last) {
                List<Integer> slots = new ArrayList<>();
                for (String p : CLUSTER_PROVIDERS) {
                  slots.add(SlotHash.getSlot(RedisLeakyBucket.redisKey(p)));
                }
                assertTrue(slots.stream().distinct().count() > 1, "keys in more than one slot: " + slots);
                assertTrue(clusterReloads[0] >= 1, "each node learned the script through the NOSCRIPT fallback");
              }
            }
          }));
    }
    return LeakSpecTest.TABLE.over(implementations);
  }

  /**
   * {@link TotalSpecification} (endpoints claiming jointly with their provider's total) on the
   * script, standalone and on this class's cluster, by the leak's path and the limits' path.
   */
  @TestFactory
  Stream<DynamicContainer> totalSpecification() {
    SlotMarkers.mark(connection.async(), false).toCompletableFuture().join();
    return TotalSpecTest.TABLE.over(TotalScriptRuns.on(LeakyBucketScriptIT::standaloneRunning,
        LeakyBucketScriptIT::clusterRunning));
  }

  @Test
  @DisplayName("keeps an endpoint's keys in its total's cluster slot when its provider has a totalRate")
  void shouldKeepAnEndpointsKeysInItsTotalsSlot() {
    TotalScriptRuns.assertKeysInTheTotalsSlot();
  }

  /** The providers the table runs for on a cluster: their keys in more than one slot. */
  private static final List<String> CLUSTER_PROVIDERS =
      List.of("payments-api", "mail-api", "sms-api", "search-api", "maps-api");

  /** One 3-node cluster for the class, started by the first run that needs it. */
  private static final ClusterOnRedis CLUSTER = new ClusterOnRedis();

  /** A leak on the standalone redis-server running {@code script} (one at a row's time). */
  private static RedisLeakyBucket standaloneRunning(LuaScript script) {
    return new RedisLeakyBucket(connection.async(), script, LeakSpecification.CONFIG);
  }

  /** A leak on this class's cluster running {@code script} (one at a row's time). */
  private static RedisLeakyBucket clusterRunning(LuaScript script) {
    return new RedisLeakyBucket(clusterConnection().commands(), script, LeakSpecification.CONFIG);
  }

  /** The product's own connection to this class's cluster, one for the class. */
  private static RedisConnection clusterConnection() {
    try {
      return CLUSTER.once(RedisConnection.class, LeakyBucketScriptIT::connectionTo);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The product's own connection to {@code cluster} (closed with it), slots marked as a dispatcher does. */
  static RedisConnection connectionTo(ClusterOnRedis cluster) {
    RedisConnection conn = cluster.closing(RedisConnection.open(new RedisConfig(cluster.uri())));
    SlotMarkers.mark(conn.commands(), false).toCompletableFuture().join();
    return conn;
  }

  /** The leak on {@code cluster} through the product's own connection (closed with it), slots marked as a dispatcher does. */
  static RedisLeakyBucket leakOn(ClusterOnRedis cluster) throws Exception {
    return new RedisLeakyBucket(cluster.once(RedisConnection.class, LeakyBucketScriptIT::connectionTo).commands(),
        LeakSpecification.CONFIG);
  }

  @Test
  @DisplayName("sends the script again after SCRIPT FLUSH")
  void shouldReloadTheScriptAfterScriptFlush() throws Exception {
    String provider = uniqueProvider("flushed");
    await(leak.claim(provider, 10, 1, 0));
    redis.scriptFlush();
    long before = leak.reloads();
    SlotClaim c = await(leak.claim(provider, 10, 1, 200_000));
    assertEquals(1, c.granted());
    assertEquals(before + 1, leak.reloads());
  }

  @Test
  @DisplayName("expires the key an hour after its next slot, a pause or a recovery has passed")
  void shouldExpireTheKeyOnceItStopsMattering() throws Exception {
    String provider = uniqueProvider("ttl");
    String key = RedisLeakyBucket.redisKey(provider);
    await(leak.claim(provider, 1, 1, 0));
    long hour = 3_600_000;
    long afterClaim = redis.pttl(key);
    assertTrue(afterClaim > hour + 500 && afterClaim <= hour + 1_000,
        "the held-back slot of a new key in 1 s, plus an hour: " + afterClaim);

    await(leak.throttle(provider, 1, 0, 0));
    long now = Long.parseLong(redis.hget(key, "ts"));
    await(leak.throttle(provider, 1, 0, now));
    long afterCut = redis.pttl(key);
    assertTrue(afterCut > hour + 99_500 && afterCut <= hour + 100_000,
        "a repeat 429 cut: recovery 100 s, plus an hour: " + afterCut);
  }

  @Test
  @DisplayName("a key lost between claims (Redis restarted empty) holds its next slot past the lost one")
  void shouldHoldBackAfterTheKeyIsLost() throws Exception {
    String provider = uniqueProvider("wiped");
    String key = RedisLeakyBucket.redisKey(provider);
    long lookahead = 2_000_000;
    List<String> time = redis.time();
    long now = Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    redis.hset(key, "last", Long.toString(now - 60_000_000));
    SlotClaim before = await(leak.claim(provider, 1, 3, lookahead));
    assertEquals(3, before.granted(), "now, +1 s and +2 s: the lookahead's end");
    long lost = before.slotMicros(2);
    redis.del(key);
    SlotClaim after = await(leak.claim(provider, 1, 3, lookahead));
    assertEquals(0, after.granted(), "nothing within the lookahead");
    assertTrue(after.firstSlotMicros() >= lost + 1_000_000,
        "the next slot is a full interval after the lost one: lost " + lost + ", " + after);
    assertTrue(after.firstSlotMicros() >= after.nowMicros() + lookahead + 1_000_000,
        "held back one lookahead and one interval: " + after);
  }

  @Test
  @DisplayName("stores the leak under sluice:v1:{provider}:leak")
  void shouldStoreTheLeakUnderAVersionedHashTaggedKey() throws Exception {
    assertEquals("sluice:v1:{payments-api}:leak", RedisLeakyBucket.redisKey("payments-api"));
    String provider = uniqueProvider("key");
    await(leak.claim(provider, 10, 1, 0));
    Map<String, String> fields = redis.hgetall(RedisLeakyBucket.redisKey(provider));
    assertEquals(Map.of("ts", fields.get("ts"), "last", fields.get("last")), fields, "no cut, no pause yet");
  }

  @Test
  @DisplayName("decides as of the stored time when Redis TIME is behind it")
  void shouldNeverGoBackInTime() throws Exception {
    String provider = uniqueProvider("clock");
    String key = RedisLeakyBucket.redisKey(provider);
    await(leak.claim(provider, 10, 1, 0));
    long ahead = Long.parseLong(redis.hget(key, "ts")) + 60_000_000;
    redis.hset(key, "ts", Long.toString(ahead));
    SlotClaim c = await(leak.claim(provider, 10, 1, 0));
    assertEquals(ahead, c.nowMicros());
    assertEquals(ahead, c.firstSlotMicros(), "the slot is at the stored time, not in the bucket's past");
  }

  @Test
  @DisplayName("never gives concurrent claimers on two connections overlapping or too-close slots")
  void shouldSpaceSlotsAcrossConcurrentClaimers() throws Exception {
    String provider = uniqueProvider("race");
    double rate = 2000;
    int threadsPerConnection = 4;
    try (RedisConnection a = RedisConnection.open(new RedisConfig(server.uri()));
         RedisConnection b = RedisConnection.open(new RedisConfig(server.uri()))) {
      List<RedisLeakyBucket> instances = List.of(
          new RedisLeakyBucket(a.commands(), LeakSpecification.CONFIG),
          new RedisLeakyBucket(b.commands(), LeakSpecification.CONFIG));
      ExecutorService pool = Executors.newFixedThreadPool(2 * threadsPerConnection);
      try {
        List<Future<List<Long>>> perThread = new ArrayList<>();
        for (int t = 0; t < 2 * threadsPerConnection; t++) {
          RedisLeakyBucket instance = instances.get(t % 2);
          perThread.add(pool.submit(() -> {
            List<Long> slots = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (slots.size() < 100 && System.nanoTime() < deadline) {
              SlotClaim c = await(instance.claim(provider, rate, 1 + ThreadLocalRandom.current().nextInt(4), 5_000));
              assertEquals(500, c.intervalMicros(), "1/2000 s");
              for (int k = 0; k < c.granted(); k++) {
                slots.add(c.slotMicros(k));
              }
            }
            return slots;
          }));
        }
        List<Long> all = new ArrayList<>();
        for (int t = 0; t < perThread.size(); t++) {
          List<Long> slots = perThread.get(t).get(30, TimeUnit.SECONDS);
          assertTrue(slots.size() >= 100, "thread " + t + " got its 100 slots: " + slots.size());
          all.addAll(slots);
        }
        Collections.sort(all);
        LeakMathTest.assertWindowInvariant(all, rate);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /**
   * The table on the script and, alongside it, LeakMath at the same times: every number must agree
   * exactly, and the script's decisions must be the table's. Each row runs at exactly the table's
   * time ({@link LuaScript#atTime}: the script's reads of Redis TIME replaced by the row's), however
   * slowly a loaded machine gets from one row to the next. (The rows ran on Redis's clock with the
   * stored instants shifted back by each row's advance, the real time between rows allowed as drift
   * in the times, and a decision could flip under load; issue 34, 11.)
   */
  private static class ScriptRun implements SpecTable.Run<LeakSpecification.Step> {
    private final Function<LuaScript, RedisLeakyBucket> leakOn;
    private final String provider;
    private final LuaScript shipped = LeakyBucketScript.load();
    private final LeakMath math = new LeakMath(LeakSpecification.CONFIG, LeakMath.Memory.LOSABLE);
    private LeakState mirror = LeakState.EMPTY;
    /** The table's clock, microseconds: from now, moved only by the rows. */
    private long clock = System.currentTimeMillis() * 1000;
    /** Times the script was sent in full (NOSCRIPT), over the rows. */
    long reloads;

    ScriptRun(Function<LuaScript, RedisLeakyBucket> leakOn, String provider) {
      this.leakOn = leakOn;
      this.provider = provider;
    }

    @Override
    public void step(int index, LeakSpecification.Step step) throws Exception {
      clock += step.advanceMillis() * 1000;
      RedisLeakyBucket bucket = leakOn.apply(shipped.atTime(clock));
      if (step.kind() == LeakSpecification.Kind.CLAIM) {
        SlotClaim script = await(bucket.claim(provider, LeakSpecification.RATE, step.wanted(),
            LeakSpecification.LOOKAHEAD_MICROS));
        LeakMath.ClaimStep java = math.claim(mirror, clock, LeakSpecification.RATE, step.wanted(),
            LeakSpecification.LOOKAHEAD_MICROS);
        mirror = java.next();
        assertEquals(java.claim(), script, "script = math, " + provider);
        assertEquals(step.expectGranted(), script.granted(), provider);
        long at = script.granted() > 0 ? script.firstSlotMicros() : script.retryAtMicros();
        assertEquals(step.expectAtMillis() * 1000, at - script.nowMicros(), 1000, provider);
        assertEquals(step.expectFactor(), script.rateFactor(), 0.01, provider);
      } else {
        long startedAt = clock - step.startedAgoMillis() * 1000;
        ThrottleDecision script = await(bucket.throttle(provider, LeakSpecification.RATE,
            step.retryAfterMillis(), startedAt));
        LeakMath.ThrottleStep java = math.throttled(mirror, clock, LeakSpecification.RATE,
            step.retryAfterMillis(), startedAt);
        mirror = java.next();
        assertEquals(java.decision(), script, "script = math, " + provider);
        assertEquals(step.expectGranted() == 1, script.cut(), provider);
        assertEquals(step.expectAtMillis() * 1000, script.pausedUntilMicros() - script.nowMicros(), 1000,
            provider);
        assertEquals(step.expectFactor(), script.rateFactor(), 0.01, provider);
      }
      reloads += bucket.reloads();
    }
  }

}
