package io.sluice.topology.limiter;

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
    List<SpecTable.Implementation<TokenBucketSpecification.Step>> implementations = new ArrayList<>(List.of(
        new SpecTable.Implementation<>("Lua on redis-server",
            () -> new KeyRun(store, new BucketKey("spec-api", "tenant-" + run), redis)),
        new SpecTable.Implementation<>("Lua on redis-server, in a batch of calls",
            () -> new KeyRun(inBatches(store, run), new BucketKey("spec-api", "batched-" + run), redis))));
    // Several tenants, so the buckets land in different slots on different nodes; each its own
    // run, so the table's steps follow each other as quickly as on one server.
    for (String tenant : new String[] {"acme", "globex", "initech", "umbrella", "hooli"}) {
      implementations.add(new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, tenant " + tenant,
          () -> new KeyRun(clusterStore(), new BucketKey("spec-api", tenant), CLUSTER.redis())));
    }
    // The batch path on a cluster: one call per slot, the answers put back in order. Last, so by
    // its end every node has been asked.
    implementations.add(new SpecTable.Implementation<>("Lua on a 3-node Redis Cluster, in a batch of calls",
        () -> new KeyRun(inBatches(clusterStore(), run), new BucketKey("spec-api", "batched-" + run), CLUSTER.redis()) {
          @Override
          public void close() throws Exception {
            assertTrue(clusterStore().reloads() >= 1, "each node learned the script through the NOSCRIPT fallback");
          }
        }));
    return TokenBucketSpecTest.TABLE.over(implementations);
  }

  /** One 3-node cluster for the class, started by the first run that needs it. */
  private static final ClusterOnRedis CLUSTER = new ClusterOnRedis();

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

  /** The table on the script, for each of its buckets in turn. */
  /**
   * The table on one bucket of the script, and alongside it the Java math fed with the clock the
   * script reports (shifted by the time the test moved the bucket): the two must agree exactly,
   * and the script's decisions must be the table's.
   */
  private static class KeyRun implements SpecTable.Run<TokenBucketSpecification.Step> {
    private final TokenBucketStore s;
    private final BucketKey key;
    private final RedisClusterCommands<String, String> hash;
    private final String marker;
    private BucketState mirror;
    private long moved;
    private long mathLost;
    private final List<Acquisition> redisAnswers = new ArrayList<>();
    private final List<Long> movedAtAnswer = new ArrayList<>();
    private final List<Acquisition> mathAnswers = new ArrayList<>();

    KeyRun(TokenBucketStore s, BucketKey key, RedisClusterCommands<String, String> commands) {
      this.s = s;
      this.key = key;
      this.hash = commands;
      this.marker = SlotMarkers.markerOf(key.redisKey());
    }

    @Override
    public void step(int index, TokenBucketSpecification.Step step) throws Exception {
      if (step.advanceMillis() != 0) {
        shiftStoredTime(hash, key, step.advanceMillis() * 1000);
        // The marker is a stored time too (unless it says nothing was lost).
        String lostAt = hash.get(marker);
        if (lostAt != null && !lostAt.equals("0")) {
          hash.set(marker, Long.toString(Long.parseLong(lostAt) - step.advanceMillis() * 1000));
        }
        moved += step.advanceMillis() * 1000;
      }
      if (step.loss() != TokenBucketSpecification.Loss.NONE) {
        // What Redis loses: the bucket alone, or the slot's data (its marker with it).
        hash.del(key.redisKey());
        if (step.loss() == TokenBucketSpecification.Loss.SLOT) {
          hash.del(marker);
        }
        mirror = null;
      }
      // Stored times moved back with every shift since the answer released here, and the
      // holder's own estimate of the bucket's clock would have moved with them.
      int i = step.releaseStep();
      AcquireRequest toRedis = i < 0 ? step.request() : step.request(redisAnswers.get(i), moved - movedAtAnswer.get(i));
      AcquireRequest toMath = i < 0 ? step.request() : step.request(mathAnswers.get(i), 0);
      Acquisition a = s.acquire(key, step.spec(), toRedis).toCompletableFuture().get(5, TimeUnit.SECONDS);
      if (step.loss() == TokenBucketSpecification.Loss.SLOT) {
        mathLost = a.nowMicros() + moved; // the script found the marker missing at this call
      }
      TokenBucketMath.Step java = TokenBucketMath.acquire(mirror, step.spec(), toMath,
          a.nowMicros() + moved, mathLost);
      mirror = java.next();
      Acquisition m = java.acquisition();
      String on = "script = math, " + key.tenant();
      assertEquals(m.granted(), a.granted(), on);
      assertEquals(m.levelBefore(), a.levelBefore(), 1e-6, on);
      assertEquals(m.ticketMicros(), a.ticketMicros(), 1, on);
      assertEquals(m.leaseId(), a.leaseId(), on);
      assertEquals(m.leaseId() == 0 ? 0 : m.leaseEndMicros() - m.nowMicros(), a.leaseId() == 0 ? 0 : a.leaseEndMicros() - a.nowMicros(),
          on);
      assertEquals(mirror.held(), heldIn(hash, key), on + ", units held");
      assertEquals(m.lineEndMicros() == 0 ? 0 : m.lineEndMicros() - m.nowMicros(),
          a.lineEndMicros() == 0 ? 0 : a.lineEndMicros() - a.nowMicros(), 1, on + ", line end");
      assertEquals(m.oldRate(), a.oldRate(), 1e-9, on + ", old line's rate");
      assertEquals(m.oldEndMicros() == 0 ? 0 : m.oldEndMicros() - m.nowMicros(),
          a.oldEndMicros() == 0 ? 0 : a.oldEndMicros() - a.nowMicros(), 1, on + ", old line's end");
      redisAnswers.add(a);
      movedAtAnswer.add(moved);
      mathAnswers.add(m);

      // The table's numbers assume no real time passes between steps; a few tens of milliseconds
      // do here, which moves levels and tickets a little (the exact check is the one above) but
      // leaves every decision of the table as it is.
      assertEquals(step.expectGranted(), a.granted(), key.tenant());
    }
  }

  private static int heldIn(RedisHashCommands<String, String> hash, BucketKey key) {
    String held = hash.hget(key.redisKey(), "held");
    return held == null ? 0 : Integer.parseInt(held);
  }

  /**
   * Moves the bucket's stored times back by {@code micros}: as if that much time had passed. The
   * lease deadlines move with them.
   */
  private static void shiftStoredTime(RedisHashCommands<String, String> hash, BucketKey key, long micros) {
    for (Map.Entry<String, String> field : hash.hgetall(key.redisKey()).entrySet()) {
      String name = field.getKey();
      String v = field.getValue();
      if (name.equals("ts") || name.equals("line") || name.equals("sweep") || name.equals("hold_end")) {
        hash.hset(key.redisKey(), name, String.format("%.0f", Double.parseDouble(v) - micros));
      } else if (name.equals("rate") && v.contains(" ")) {
        // "rate debt_end top": the end of the debt's reservations moves.
        String[] f = v.split(" ");
        hash.hset(key.redisKey(), name, f[0] + " " + (Long.parseLong(f[1]) - micros) + " " + f[2]);
      } else if (name.equals("old")) {
        // "rate end": the old line's end moves.
        String[] f = v.split(" ");
        hash.hset(key.redisKey(), name, f[0] + " " + (Long.parseLong(f[1]) - micros));
      } else if (name.startsWith("lease:")) {
        // "deadline units held granted lead": the deadline and the time of the grant move.
        String[] f = v.split(" ");
        hash.hset(key.redisKey(), name,
            (Long.parseLong(f[0]) - micros) + " " + f[1] + " " + f[2] + " " + (Long.parseLong(f[3]) - micros) + " " + f[4]);
      }
    }
  }
}
