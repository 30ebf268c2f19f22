package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.api.sync.RedisCommands;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Shadow mode against the script on a real redis-server: a shadow burst far over the quota leaves
 * the bucket out of debt and its line as it was, so an enforced event right after waits no longer
 * than the units the shadow burst was charged (those the bucket held) imply: at most one unit's
 * refill. The same burst enforced leaves a line many seconds long (the contrast, on the same
 * server).
 */
@ExtendWith(RealServers.class)
class ShadowBucketIT {
  /** 10 units at 10/s, a 1 s horizon: at most 10 units of debt when enforced. */
  private static final BucketSpec SPEC = new BucketSpec(10, 10, 1_000_000);
  private static final int BURST = 200;

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
  static void disconnect() {
    on.close();
  }

  private static GateLimiter limiter() {
    return new GateLimiter(store, new RedisCircuit(100, 1_000, s -> {}), System::nanoTime,
        Duration.ofSeconds(2), Duration.ofMillis(100), 64, (k, n) -> {});
  }

  private record Burst(int charged, int wouldDefer, long elapsedMicros) {}

  private static Burst burst(BucketKey key, boolean shadow) {
    GateLimiter gate = limiter();
    int charged = 0;
    int wouldDefer = 0;
    long start = redisMicros();
    for (int i = 0; i < BURST; i++) {
      LimiterDecision d = gate.decide(key, SPEC, 1, false, shadow);
      if (d instanceof LimiterDecision.Admit) {
        charged++;
      } else if (d instanceof LimiterDecision.WouldDefer) {
        wouldDefer++;
      } else if (shadow) {
        throw new AssertionError("a shadow bucket neither reserves nor queues: event " + i + ": " + d);
      }
    }
    return new Burst(charged, wouldDefer, redisMicros() - start);
  }

  private static long redisMicros() {
    List<String> t = redis.time();
    return Long.parseLong(t.get(0)) * 1_000_000 + Long.parseLong(t.get(1));
  }

  /** How long after the Redis time read just before it the enforced event is due, ms. */
  private static long enforcedWaitMillis(BucketKey key) {
    long before = redisMicros() / 1000;
    LimiterDecision d = limiter().decide(key, SPEC, 1, false);
    if (d instanceof LimiterDecision.Admit a) {
      return a.atMillis() - before;
    }
    if (d instanceof LimiterDecision.Reserved r) {
      return r.notBeforeMillis() - before;
    }
    return ((LimiterDecision.Queued) d).notBeforeMillis() - before;
  }

  @Test
  void shouldLeaveTheLineAndTheDebtOfTheBucketAsTheyWereAfterAShadowBurst() {
    BucketKey key = new BucketKey("shadow-api", "watched-" + System.nanoTime());
    Burst b = burst(key, true);

    assertEquals(BURST, b.charged() + b.wouldDefer(), "every event decided: admitted or would defer");
    assertTrue(b.wouldDefer() > BURST / 2, "most would have been deferred: " + b);
    // Charged only what the bucket held: capacity plus the refill over the burst (one unit of slack
    // for the read of TIME around it).
    assertTrue(b.charged() <= SPEC.capacity() + SPEC.refillPerSecond() * b.elapsedMicros() / 1e6 + 1, "" + b);
    assertNull(redis.hget(key.redisKey(), "line"), "the shadow burst took no place in the line");
    double level = Double.parseDouble(redis.hget(key.redisKey(), "tokens"));
    assertTrue(level >= 0, "no debt: level " + level);

    // An enforced event right after waits at most for one unit of refill (100 ms at 10/s), plus
    // the time of the round trip it is measured across.
    long wait = enforcedWaitMillis(key);
    System.out.printf("shadow burst: %d charged, %d would defer in %.1f ms, level %.3f after; enforced next waits %d ms%n",
        b.charged(), b.wouldDefer(), b.elapsedMicros() / 1000.0, level, wait);
    assertTrue(wait <= 100 + 20, "enforced right after the shadow burst waits " + wait + " ms");
  }

  @Test
  void shouldLeaveALongLineAfterTheSameBurstEnforced() {
    // The contrast: enforced, the same burst reserves the horizon and queues the rest.
    BucketKey key = new BucketKey("shadow-api", "enforced-" + System.nanoTime());
    burst(key, false);
    assertTrue(redis.hget(key.redisKey(), "line") != null, "a line");
    long wait = enforcedWaitMillis(key);
    System.out.printf("enforced burst: the next enforced event waits %d ms%n", wait);
    assertTrue(wait > 10_000, "the next enforced event queues behind the burst: " + wait + " ms");
  }
}
