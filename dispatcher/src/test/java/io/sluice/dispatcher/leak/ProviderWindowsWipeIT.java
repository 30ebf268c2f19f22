package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisConnection;
import io.sluice.redis.SlotMarkers;
import io.sluice.config.ProviderLimit;
import io.sluice.config.RedisConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A provider's windows and concurrency leases across a loss of Redis's data, on a redis-server of
 * this test's own (it is wiped): FLUSHALL, and a restart without persistence. The leak's own
 * protection (a lost {@code last} reads as now + lookahead) holds the rate; these hold the
 * windows, which an empty key would otherwise grant whole a second time.
 */
class ProviderWindowsWipeIT {
  private static final LeakConfig CONFIG = new LeakConfig(0.25, 100_000_000);
  private static final long LOOKAHEAD_MICROS = 100_000;
  /** 5 calls per sliding 2 s, at up to 100 calls a second: a window is spent in 50 ms. */
  private static final ProviderLimits WINDOW = new ProviderLimits(List.of(ProviderLimit.rate(100),
      new ProviderLimit(ProviderLimit.Kind.CALLS, 5, Duration.ofSeconds(2),
          ProviderLimit.Window.SLIDING, Duration.ZERO)));

  private RedisServerProcess server;
  private RedisConnection connection;
  private RedisLeakyBucket leak;

  @BeforeEach
  void start() {
    server = RedisServerProcess.start();
    connection = RedisConnection.open(new RedisConfig(server.uri()));
    leak = new RedisLeakyBucket(connection.commands(), CONFIG);
    SlotMarkers.mark(connection.commands(), false).toCompletableFuture().join();
  }

  @AfterEach
  void stop() {
    connection.close();
    server.close();
  }

  private void flushAll() {
    admin(commands -> commands.flushall());
  }

  /**
   * A provider whose leak has a last slot long past: a new one holds its first slot back one
   * lookahead (the leak's own protection), which is not what these tests are about.
   */
  private String knownProvider(String name) {
    admin(commands -> commands.hset(RedisLeakyBucket.redisKey(name), "last", "0"));
    return name;
  }

  private void admin(java.util.function.Consumer<io.lettuce.core.api.sync.RedisCommands<String, String>> command) {
    io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(server.uri());
    try (var admin = client.connect()) {
      command.accept(admin.sync());
    } finally {
      client.shutdown();
    }
  }

  private SlotClaim claim(String provider, ProviderLimits limits, int wanted, String lease,
      long leaseMicros) throws Exception {
    // After a restart the connection comes back on its own; a claim sent meanwhile is sent again.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      try {
        return leak.claim(provider, limits,
                new LimitedClaim(wanted, LOOKAHEAD_MICROS, 1, lease, leaseMicros))
            .toCompletableFuture().get(5, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }

  /**
   * Claims for {@code forMicros} of the leak's time, each claim when the last one said to ask
   * again, collecting every granted slot ({slot, 1}).
   */
  private List<long[]> claimFor(String provider, long forMicros) throws Exception {
    List<long[]> slots = new ArrayList<>();
    SlotClaim c = claim(provider, WINDOW, 5, "w", 1_000_000);
    long until = c.nowMicros() + forMicros;
    while (c.nowMicros() < until) {
      for (int k = 0; k < c.granted(); k++) {
        slots.add(new long[] {c.slotMicros(k), 1});
      }
      // Waiting for the leak's time to reach the next slot is the test's subject, not a stand-in
      // for synchronisation: the script decides on Redis TIME.
      long wait = Math.max(1_000, Math.min(c.retryAtMicros(), until) - c.nowMicros());
      TimeUnit.MICROSECONDS.sleep(wait);
      c = claim(provider, WINDOW, 5, "w", 1_000_000);
    }
    return slots;
  }

  @Test
  @DisplayName("a FLUSHALL between claims gives no second window: 5 per sliding 2 s across the loss")
  void shouldGiveNoSecondWindowAfterAFlush() throws Exception {
    String provider = knownProvider("flushed");
    List<long[]> slots = new ArrayList<>(claimFor(provider, 300_000));
    assertEquals(5, slots.size(), "the window is spent before the loss");
    long lastBefore = slots.get(4)[0];
    flushAll();
    List<long[]> after = claimFor(provider, 3_000_000);
    assertTrue(!after.isEmpty(), "calls resume once the lost window has passed");
    long firstAfter = after.get(0)[0];
    assertTrue(firstAfter >= lastBefore + 2_000_000,
        "nothing within a window of the calls before the loss: " + (firstAfter - lastBefore) + " us");
    slots.addAll(after);
    LimitBounds.assertEveryLimitHeld(slots, WINDOW);
  }

  @Test
  @DisplayName("a day window known only from the provider's answers is not held full after a FLUSHALL: calls go on")
  void shouldNotHoldALearnedOnlyWindowAfterAFlush() throws Exception {
    ProviderLimit day = new ProviderLimit(ProviderLimit.Kind.CALLS, 50_000, Duration.ofDays(1),
        ProviderLimit.Window.SLIDING, Duration.ZERO);
    List<ProviderLimit> all = List.of(ProviderLimit.rate(100), day);
    knownProvider("configured");
    flushAll();
    assertEquals(0, grantedWithinHalfASecond("configured", new ProviderLimits(all)),
        "a configured day window may hold the lost calls: held after the loss");
    knownProvider("learned-only");
    flushAll();
    assertTrue(grantedWithinHalfASecond("learned-only",
        new ProviderLimits(all, java.util.Set.of(day.id()))) > 0,
        "a learned-only day window is not held: calls resume past the leak's own hold-back");
  }

  /** Slots granted to claims of one slot each for half a second, as each answer says to retry. */
  private int grantedWithinHalfASecond(String provider, ProviderLimits limits) throws Exception {
    SlotClaim c = claim(provider, limits, 1, "x", 1_000_000);
    long until = c.nowMicros() + 500_000;
    int granted = c.granted();
    for (int n = 0; c.nowMicros() < until && granted == 0; n++) {
      // Waiting for the leak's time to reach the retry instant is the subject, not a stand-in.
      TimeUnit.MICROSECONDS.sleep(Math.max(1_000,
          Math.min(c.retryAtMicros(), until) - c.nowMicros()));
      c = claim(provider, limits, 1, "x" + n, 1_000_000);
      granted += c.granted();
    }
    return granted;
  }

  @Test
  @DisplayName("a restart without persistence gives no second window either")
  void shouldGiveNoSecondWindowAfterARestart() throws Exception {
    String provider = knownProvider("restarted");
    List<long[]> slots = new ArrayList<>(claimFor(provider, 300_000));
    assertEquals(5, slots.size(), "the window is spent before the loss");
    server.restart();
    slots.addAll(claimFor(provider, 3_000_000));
    assertTrue(slots.size() > 5, "calls resume once the lost window has passed");
    LimitBounds.assertEveryLimitHeld(slots, WINDOW);
  }

  @Test
  @DisplayName("leases lost with Redis still count until they would have expired")
  void shouldHoldLostLeasesUntilTheyExpire() throws Exception {
    ProviderLimits two = new ProviderLimits(List.of(ProviderLimit.rate(100),
        ProviderLimit.concurrency(2)));
    long leaseMicros = 30_000_000;
    knownProvider("leased");
    SlotClaim held = claim("leased", two, 2, "held", leaseMicros);
    assertEquals(2, held.granted(), "both leases taken, their calls in flight");
    flushAll();
    // Past the leak's own hold-back of a lost key (one lookahead), for half a second of claims.
    SlotClaim after = claim("leased", two, 1, "after", leaseMicros);
    long until = after.nowMicros() + 500_000;
    int claims = 1;
    while (after.nowMicros() < until) {
      assertEquals(0, after.granted(), "the lost leases are still held: " + after);
      assertTrue(after.retryAtMicros() <= after.nowMicros() + 100_000,
          "asked to come back soon (another instance may release), not after the lease");
      TimeUnit.MICROSECONDS.sleep(Math.max(1_000, after.retryAtMicros() - after.nowMicros()));
      after = claim("leased", two, 1, "after" + claims++, leaseMicros);
    }
    assertTrue(claims >= 5, "asked again and again: " + claims);
  }
}
