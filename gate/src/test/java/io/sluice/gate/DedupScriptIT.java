package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.ScriptOutputType;
import io.sluice.config.RedisConfig;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisAccess;
import io.sluice.testkit.Await;
import io.sluice.testkit.RealServers;
import io.sluice.gate.limiter.BucketKey;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code lua/dedup.lua} through {@link RedisSeenIds} on a real redis-server: the first mark kept
 * for the window and answered to every later record, and what a window costs per event.
 */
@ExtendWith(RealServers.class)
class DedupScriptIT {
  private static final Duration WINDOW = Duration.ofMinutes(10);

  @Test
  void shouldKeepTheFirstMarkForTheWindowAndAnswerItToEveryLaterRecord(RedisServerProcess redis) throws Exception {
    try (RedisAccess access = RedisAccess.open(new RedisConfig(redis.uri()), "dedup-script-it")) {
      RedisSeenIds seen = new RedisSeenIds(access.commands(), access.circuit(), Duration.ofSeconds(2));
      String key = new BucketKey("hooks", "dedup-script-it").seenKey("order-{1} x");
      String first = new DedupMark("sluice.inbound-0@1", 1_000, DedupMark.ACCEPTED).encoded();
      String second = new DedupMark("sluice.inbound-0@9", 2_000, DedupMark.ACCEPTED).encoded();
      assertEquals(first, seen.firstMark(key, first, WINDOW), "none before: its own, stored");
      assertEquals(first, seen.firstMark(key, second, WINDOW), "the first's, unchanged");
      assertEquals(first, seen.firstMark(key, first, WINDOW), "the first read again: its own");
      long ttl = pttl(access, key);
      assertTrue(ttl > WINDOW.toMillis() - 10_000 && ttl <= WINDOW.toMillis(), "expires with its window: " + ttl);
      // Past the window (here: a window of 1 ms, waited out by Redis's own expiry), the id is new.
      String shortKey = new BucketKey("hooks", "dedup-script-it").seenKey("short");
      seen.firstMark(shortKey, first, Duration.ofMillis(1));
      Await.until("the 1 ms window's key to expire", Duration.ofSeconds(5), () -> pttl(access, shortKey) == -2);
      assertEquals(second, seen.firstMark(shortKey, second, WINDOW));
    }
  }

  /** Prints what the window costs an event in Redis: a round trip, the script's time, a key's memory. */
  @Test
  void shouldKeepOneKeyPerIdForTheWindowAndSayWhatItCosts(RedisServerProcess redis) throws Exception {
    try (RedisAccess access = RedisAccess.open(new RedisConfig(redis.uri()), "dedup-cost")) {
      RedisSeenIds seen = new RedisSeenIds(access.commands(), access.circuit(), Duration.ofSeconds(2));
      Duration window = WINDOW;
      String mark = new DedupMark("sluice.inbound-11@123456789", 1_795_938_717_059L, DedupMark.ACCEPTED).encoded();
      long before = usedMemory(access);
      int n = 20_000;
      long start = System.nanoTime();
      for (int i = 0; i < n; i++) {
        String key = new BucketKey("hooks", "tenant-" + (i % 100)).seenKey("order-" + i + "-2f1c9e0a");
        assertEquals(mark, seen.firstMark(key, mark, window));
      }
      double micros = (System.nanoTime() - start) / 1000.0 / n;
      long perKey = (usedMemory(access) - before) / n;
      String key = new BucketKey("hooks", "tenant-0").seenKey("order-0-2f1c9e0a");
      long ttl = pttl(access, key);
      String stats = (String) access.commands().eval("return redis.call('INFO', 'commandstats')",
          ScriptOutputType.VALUE).get(2, TimeUnit.SECONDS);
      System.out.printf("dedup: %.1f us per check (round trip, one connection), %d bytes of Redis memory per id;"
          + " %s%n", micros, perKey, stats.lines().filter(l -> l.startsWith("cmdstat_evalsha")).findFirst().orElse(""));
      assertTrue(ttl > 0 && ttl <= window.toMillis(), "each id expires with its window: " + ttl);
    }
  }

  private static long usedMemory(RedisAccess access) throws Exception {
    String info = (String) access.commands().eval("return redis.call('INFO', 'memory')", ScriptOutputType.VALUE)
        .get(2, TimeUnit.SECONDS);
    return info.lines().filter(l -> l.startsWith("used_memory:")).map(l -> Long.parseLong(l.substring(12).trim()))
        .findFirst().orElseThrow();
  }

  private static long pttl(RedisAccess access, String key) {
    try {
      return (Long) access.commands().eval("return redis.call('PTTL', KEYS[1])", ScriptOutputType.INTEGER, key)
          .get(2, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

}
