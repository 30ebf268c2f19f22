package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.sluice.testkit.ClusterOnRedis;
import io.sluice.testkit.RealServers;
import io.sluice.testkit.SpecTable;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.SlotMarkers;
import io.lettuce.core.api.sync.RedisHashCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.sluice.config.RedisConfig;
import io.sluice.redis.LuaScript;
import io.sluice.redis.RedisConnection;
import java.util.function.Function;

/** The Lua script on a real redis-server, held to the same table as the Java math. */
@ExtendWith(RealServers.class)
class TokenBucketScriptIT {
  private static StoreOnRedis on;
  private static RedisCommands<String, String> redis;
  private static LettuceTokenBucketStore store;

  @BeforeAll
  static void connect(RedisServerProcess server) {
    on = StoreOnRedis.open(server);
    redis = on.redis();
    store = on.store();
  }

  @AfterAll
  static void disconnect() throws Exception {
    on.close();
    CLUSTER.close();
  }

  /**
   * {@link TokenBucketSpecification} on the script: on a redis-server; in a batch of calls (each
   * step's request decided in one script call between requests for two other buckets, as the gate
   * sends its quiet tenants' events); and on a 3-node cluster (five tenants, so the buckets land in
   * different slots on different nodes, and the batch path there, one call per slot).
   */
  @TestFactory
  Stream<DynamicContainer> tokenBucketSpecification() {
    String run = Long.toString(System.nanoTime());
    RedisScriptingAsyncCommands<String, String> one = on.connection().async();
    List<SpecTable.Implementation<TokenBucketSpecification.Step>> implementations = new ArrayList<>(List.of(
        new SpecTable.Implementation<>("Lua on redis-server",
            () -> new KeyRun(script -> new LettuceTokenBucketStore(one, script),
                new BucketKey("spec-api", "tenant-" + run), redis)),
        new SpecTable.Implementation<>("Lua on redis-server, in a batch of calls",
            () -> new KeyRun(script -> inBatches(new LettuceTokenBucketStore(one, script), run),
                new BucketKey("spec-api", "batched-" + run), redis))));
    // Several tenants, so the buckets land in different slots on different nodes.
    for (String tenant : new String[] {"acme", "globex", "initech", "umbrella", "hooli"}) {
      implementations.add(new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, tenant " + tenant,
          () -> new KeyRun(script -> new LettuceTokenBucketStore(clusterCommands(), script),
              new BucketKey("spec-api", tenant), CLUSTER.redis())));
    }
    // The batch path on a cluster: one call per slot, the answers put back in order.
    List<LettuceTokenBucketStore> batchStores = new ArrayList<>();
    implementations.add(new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, in a batch of calls",
        () -> new KeyRun(script -> {
          LettuceTokenBucketStore s = new LettuceTokenBucketStore(clusterCommands(), script);
          batchStores.add(s);
          return inBatches(s, run);
        }, new BucketKey("spec-api", "batched-" + run), CLUSTER.redis()) {
          @Override
          public void close() throws Exception {
            assertTrue(batchStores.stream().mapToLong(LettuceTokenBucketStore::reloads).sum() >= 1,
                "each node learned the script through the NOSCRIPT fallback");
          }
        }));
    return TokenBucketSpecTest.TABLE.over(implementations);
  }

  /** One 3-node cluster for the class, started by the first run that needs it. */
  private static final ClusterOnRedis CLUSTER = new ClusterOnRedis();

  /** The product's connection to the cluster, its slots marked intact as a gate does. */
  private static RedisScriptingAsyncCommands<String, String> clusterCommands() {
    try {
      clusterStore();
      return CLUSTER.once(RedisConnection.class,
          c -> c.closing(RedisConnection.open(new RedisConfig(c.uri())))).commands();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The store on the cluster, one for the class (so its count of script reloads is the class's). */
  private static LettuceTokenBucketStore clusterStore() throws Exception {
    return CLUSTER.once(LettuceTokenBucketStore.class, StoreOnRedis::onCluster);
  }

  /**
   * A store whose every request goes through {@link TokenBucketStore#acquireBatch}, beside a
   * request for another bucket before it and one after it (other tenants, so other slots).
   */
  static TokenBucketStore inBatches(TokenBucketStore s, String run) {
    return new TokenBucketStore() {
      @Override
      public java.util.concurrent.CompletionStage<Acquisition> acquire(BucketKey key, BucketSpec spec, AcquireRequest request) {
        return s.acquireBatch(List.of(
                new BucketCall(new BucketKey("spec-api", "before-" + run), spec, AcquireRequest.single(1)),
                new BucketCall(key, spec, request),
                new BucketCall(new BucketKey("spec-api", "after-" + run), spec, AcquireRequest.leasing(3, 1, 100_000))))
            .thenApply(answers -> {
              assertEquals(3, answers.size());
              return answers.get(1);
            });
      }
    };
  }

  @Test
  void shouldReloadTheScriptAfterScriptFlush() throws Exception {
    BucketKey key = new BucketKey("spec-api", "flushed-" + System.nanoTime());
    store.acquire(key, TokenBucketSpecification.SPEC, AcquireRequest.single(1)).toCompletableFuture().get();
    redis.scriptFlush();
    long before = store.reloads();
    Acquisition a = store.acquire(key, TokenBucketSpecification.SPEC, AcquireRequest.single(1))
        .toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertEquals(1, a.granted());
    assertEquals(before + 1, store.reloads());
  }

  @Test
  void shouldExpireTheKeyOnceTheBucketWouldBeFullAgain() throws Exception {
    BucketKey key = new BucketKey("spec-api", "ttl-" + System.nanoTime());
    // Drain 10 units at 10/s: full again in one second; the key lives that long plus a second.
    store.acquire(key, TokenBucketSpecification.SPEC, new AcquireRequest(10, 10, false, 0, null, null)).toCompletableFuture().get();
    long ttl = redis.pttl(key.redisKey());
    assertTrue(ttl > 1_500 && ttl <= 2_000, "ttl " + ttl);
  }

  @Test
  void shouldStoreTheBucketUnderAVersionedHashTaggedKey() throws Exception {
    BucketKey key = new BucketKey("payments-api", "acme");
    assertEquals("sluice:v1:{payments-api:acme}:tb", key.redisKey());
    store.acquire(key, TokenBucketSpecification.SPEC, AcquireRequest.single(1)).toCompletableFuture().get();
    Map<String, String> fields = redis.hgetall(key.redisKey());
    assertTrue(fields.containsKey("tokens") && fields.containsKey("ts"), fields.toString());
  }

  /**
   * The table on one bucket of the script, its clock the table's ({@link FrozenTimeScript}: each
   * row runs at exactly the time the table says), and alongside it the Java math at the same
   * times: the two must agree exactly, and the script's decisions must be the table's.
   */
  private static class KeyRun implements SpecTable.Run<TokenBucketSpecification.Step> {
    private final Function<LuaScript, TokenBucketStore> storeOn;
    private final BucketKey key;
    private final RedisClusterCommands<String, String> hash;
    private final LuaScript shipped = TokenBucketScript.load();
    /** The table's clock, microseconds: from now, moved only by the rows. */
    private long clock = System.currentTimeMillis() * 1000;
    private long scriptAt = -1;
    private TokenBucketStore s;
    private BucketState mirror;
    private long mathLost;
    private final List<Acquisition> redisAnswers = new ArrayList<>();
    private final List<Acquisition> mathAnswers = new ArrayList<>();

    KeyRun(Function<LuaScript, TokenBucketStore> storeOn, BucketKey key,
        RedisClusterCommands<String, String> commands) {
      this.storeOn = storeOn;
      this.key = key;
      this.hash = commands;
    }

    @Override
    public void step(int index, TokenBucketSpecification.Step step) throws Exception {
      clock += step.advanceMillis() * 1000;
      if (clock != scriptAt) {
        s = storeOn.apply(FrozenTimeScript.at(shipped, clock));
        scriptAt = clock;
      }
      if (step.loss() != TokenBucketSpecification.Loss.NONE) {
        // What Redis loses: the bucket alone, or the slot's data (its marker with it).
        hash.del(key.redisKey());
        if (step.loss() == TokenBucketSpecification.Loss.SLOT) {
          hash.del(SlotMarkers.markerOf(key.redisKey()));
        }
        mirror = null;
      }
      int i = step.releaseStep();
      AcquireRequest toRedis = i < 0 ? step.request() : step.request(redisAnswers.get(i), 0);
      AcquireRequest toMath = i < 0 ? step.request() : step.request(mathAnswers.get(i), 0);
      Acquisition a = s.acquire(key, step.spec(), toRedis).toCompletableFuture().get(5, TimeUnit.SECONDS);
      if (step.loss() == TokenBucketSpecification.Loss.SLOT) {
        mathLost = clock; // the script found the marker missing at this call
      }
      TokenBucketMath.Step java = TokenBucketMath.acquire(mirror, step.spec(), toMath, clock, mathLost);
      mirror = java.next();
      Acquisition m = java.acquisition();
      String on = "script = math, " + key.tenant();
      assertEquals(m.granted(), a.granted(), on);
      assertEquals(m.levelBefore(), a.levelBefore(), 1e-6, on);
      assertEquals(m.ticketMicros(), a.ticketMicros(), 1, on);
      assertEquals(m.leaseId(), a.leaseId(), on);
      assertEquals(m.leaseEndMicros(), a.leaseEndMicros(), on);
      assertEquals(mirror.held(), heldIn(hash, key), on + ", units held");
      assertEquals(m.lineEndMicros(), a.lineEndMicros(), 1, on + ", line end");
      assertEquals(m.oldRate(), a.oldRate(), 1e-9, on + ", old line's rate");
      assertEquals(m.oldEndMicros(), a.oldEndMicros(), 1, on + ", old line's end");
      redisAnswers.add(a);
      mathAnswers.add(m);
      // Exactly the table's time: no real time passes between rows, however loaded the machine.
      assertEquals(step.expectGranted(), a.granted(), key.tenant());
    }
  }

  private static int heldIn(RedisHashCommands<String, String> hash, BucketKey key) {
    String held = hash.hget(key.redisKey(), "held");
    return held == null ? 0 : Integer.parseInt(held);
  }
}
