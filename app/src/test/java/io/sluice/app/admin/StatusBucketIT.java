package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.SlotMarkers;
import io.sluice.testkit.RealServers;
import io.sluice.gate.limiter.AcquireRequest;
import io.sluice.gate.limiter.Acquisition;
import io.sluice.gate.limiter.BucketKey;
import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.LettuceTokenBucketStore;
import io.sluice.gate.limiter.TokenBucketScript;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code status} reads a bucket as the gate decides by it: before each of the gate's calls below,
 * the status reads the bucket (its key, its hash, its slot's marker), and the level it computes
 * for the time of the call is the level the script decided that call by. The calls take a lease,
 * go into debt, queue, and change the quota's rate both ways: each a state the old refill formula
 * read otherwise.
 */
@ExtendWith(RealServers.class)
class StatusBucketIT {
  /** A step: the quota at that time (the configuration the gate and the status both read), a request. */
  record Row(String why, BucketSpec spec, AcquireRequest request) {}

  static final BucketSpec QUOTA = new BucketSpec(10, 2, 1_000_000);
  static final BucketSpec RAISED = new BucketSpec(10, 8, 1_000_000);
  static final BucketSpec CUT = new BucketSpec(10, 1, 1_000_000);

  static final List<Row> ROWS = List.of(
      new Row("a bucket never used: full", QUOTA, AcquireRequest.leasing(6, 1, 2_000_000)),
      new Row("5 units leased, held against the cap", QUOTA, AcquireRequest.single(3)),
      new Row("into reservations", QUOTA, AcquireRequest.single(3)),
      new Row("a cost beyond the horizon: queued with a ticket", QUOTA, AcquireRequest.single(8)),
      new Row("the quota raised while units are reserved: an old line", RAISED, AcquireRequest.single(1)),
      new Row("beside the old line", RAISED, AcquireRequest.single(2)),
      new Row("cut below what runs: the debt folded back", CUT, AcquireRequest.single(1)),
      new Row("repaid at the cut rate", CUT, AcquireRequest.holding(1)));

  @Test
  void shouldShowTheLevelTheScriptDecidesBy(RedisServerProcess server) throws Exception {
    onRedis(server, "tenant-", (connection, redis, store, key) -> {
      for (int i = 0; i < ROWS.size(); i++) {
        Row row = ROWS.get(i);
        List<Object> read = read(redis, key);
        Acquisition gate = store.acquire(key, row.spec(), row.request()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(gate.levelBefore(), StatusReader.level(read, row.spec(), gate.nowMicros()), 1e-6,
            "#" + i + " " + row.why());
      }
    });
  }

  /**
   * After a FLUSHALL the status says when Redis lost its data and until when tenants wait (every
   * rebuilt bucket starts spent with a reach of reservations); with the slots intact it says
   * nothing. A loss a script found keeps its time in the slot's marker.
   */
  @Test
  void shouldSayWhenRedisLostItsDataAndUntilWhenTenantsWait(RedisServerProcess server) throws Exception {
    onRedis(server, "lost-", (connection, redis, store, key) -> {
      long reach = 60_000_000;
      long refill = 10_000_000;
      assertEquals(Optional.empty(), StatusReader.redisLoss(connection.async(), reach, refill));

      redis.flushall();
      Acquisition first = store.acquire(key, QUOTA, AcquireRequest.single(1))
          .toCompletableFuture().get(5, TimeUnit.SECONDS);
      RedisLoss loss = StatusReader.redisLoss(connection.async(), reach, refill).orElseThrow();
      assertEquals(RedisLoss.SAMPLED_SLOTS, loss.slotsLost(), "every sampled slot's marker went with the data");
      assertTrue(loss.lostAtMicros() >= first.nowMicros(), "unfound losses count as found now: " + loss);
      assertEquals(loss.lostAtMicros() + reach, loss.admissionsFromMicros());
      assertEquals(first.nowMicros() + "", redis.get(SlotMarkers.markerOf(key.redisKey())),
          "the script stamped its slot's marker with the loss it found");
      assertEquals(0, first.granted(), "the rebuilt bucket starts spent, however little the tenant had used");
    });
  }

  /**
   * The time status says a unit asked now is due (a tenant's backlog through its quota) is the
   * due time the script gives one unit at that instant: from a full bucket into reservations.
   */
  @Test
  void shouldShowTheDueTimeTheScriptGives(RedisServerProcess server) throws Exception {
    onRedis(server, "due-", (connection, redis, store, key) -> {
      int reserved = 0;
      for (int i = 0; i < 14; i++) {
        List<Object> read = read(redis, key);
        Acquisition gate = store.acquire(key, QUOTA, AcquireRequest.single(1)).toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
        if (!gate.isGranted()) {
          break; // beyond the horizon: a ticket, no due time of the script's to compare
        }
        long due = gate.dueOfUnit(1, QUOTA);
        reserved += due > gate.nowMicros() ? 1 : 0;
        assertEquals(due, StatusReader.dueMicros(read, QUOTA, gate.nowMicros()), 1,
            "#" + i + " level " + gate.levelBefore());
      }
      assertTrue(reserved > 0, "some units were reserved ahead, not all at once");
    });
  }

  /** Steps against one fresh bucket of the script on a redis-server. */
  interface Steps {
    void run(StatefulRedisConnection<String, String> connection, RedisCommands<String, String> redis,
        LettuceTokenBucketStore store, BucketKey key) throws Exception;
  }

  private static void onRedis(RedisServerProcess server, String tenant, Steps steps)
      throws Exception {
    RedisClient client = RedisClient.create(server.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      LettuceTokenBucketStore store = new LettuceTokenBucketStore(connection.async(), TokenBucketScript.load());
      store.markSlotsIntact().toCompletableFuture().get(30, TimeUnit.SECONDS);
      steps.run(connection, connection.sync(), store, new BucketKey("status-api", tenant + System.nanoTime()));
    } finally {
      client.shutdown();
    }
  }

  /** What status reads of the bucket: its script's reply. */
  private static List<Object> read(RedisCommands<String, String> redis, BucketKey key) {
    return redis.eval(StatusReader.BUCKET_SCRIPT, ScriptOutputType.MULTI, key.redisKey(),
        SlotMarkers.markerOf(key.redisKey()));
  }
}
