package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LocalLeakyBucketTest {
  private static final LeakConfig CONFIG = new LeakConfig(0.1, 30_000_000);

  private static SlotClaim claim(LeakyBucket leak, String provider, double rate, int wanted, long lookahead)
      throws Exception {
    return leak.claim(provider, rate, wanted, lookahead).toCompletableFuture().get();
  }

  @Test
  @DisplayName("leaks each instance its share of the provider's rate")
  void shouldLeakItsShareOfTheRate() throws Exception {
    AtomicLong clock = new AtomicLong(5_000_000);
    LocalLeakyBucket leak = new LocalLeakyBucket(CONFIG, 4, clock::get);
    SlotClaim c = claim(leak, "p", 100, 5, 100_000);
    assertEquals(40_000, c.intervalMicros(), "100/s over 4 instances: 25/s each");
    assertEquals(3, c.granted(), "0, 40 and 80 ms within 100 ms");
  }

  @Test
  @DisplayName("enforces every limit at its share when the instances cannot see each other")
  void shouldEnforceItsShareOfEveryLimit() throws Exception {
    AtomicLong clock = new AtomicLong(5_000_000);
    LocalLeakyBucket leak = new LocalLeakyBucket(CONFIG, 2, clock::get);
    ProviderLimits limits = new ProviderLimits(List.of(
        io.sluice.config.ProviderLimit.rate(100),
        io.sluice.config.ProviderLimit.calls(7, java.time.Duration.ofMinutes(1),
            io.sluice.config.ProviderLimit.Window.SLIDING),
        io.sluice.config.ProviderLimit.concurrency(4)));
    LimitedClaim first = new LimitedClaim(10, 1_000_000, 1, "a", 10_000_000);
    SlotClaim c = leak.claim("p", limits, first).toCompletableFuture().get();
    assertEquals(2, c.granted(), "concurrency 4 over 2 instances: 2 each");
    leak.release("p", first.leaseId(0));
    leak.release("p", first.leaseId(1));
    SlotClaim d = leak.claim("p", limits, new LimitedClaim(10, 1_000_000, 1, "b", 10_000_000))
        .toCompletableFuture().get();
    assertEquals(1, d.granted(), "7 calls a minute over 2 instances: 3 each, 2 already granted");
  }

  @Test
  @DisplayName("decides on its injected clock and reports it")
  void shouldUseItsClock() throws Exception {
    AtomicLong clock = new AtomicLong(5_000_000);
    LocalLeakyBucket leak = new LocalLeakyBucket(CONFIG, 1, clock::get);
    claim(leak, "p", 10, 1, 0);
    clock.addAndGet(30_000);
    SlotClaim c = claim(leak, "p", 10, 1, 100_000);
    assertEquals(5_030_000, c.nowMicros());
    assertEquals(70_000, c.slotMicros(0) - c.nowMicros(), "the local delay: 100 ms after the first slot");
  }

  @Test
  @DisplayName("keeps each provider's leak apart")
  void shouldKeepProvidersApart() throws Exception {
    AtomicLong clock = new AtomicLong(5_000_000);
    LocalLeakyBucket leak = new LocalLeakyBucket(CONFIG, 1, clock::get);
    leak.throttle("slow", 10, 60_000, 5_000_000).toCompletableFuture().get();
    assertEquals(0, claim(leak, "slow", 10, 1, 100_000).granted(), "paused");
    assertEquals(1, claim(leak, "fast", 10, 1, 100_000).granted(), "not paused by another provider's 429");
  }

  @Test
  @DisplayName("never grants overlapping or too-close slots to concurrent threads")
  void shouldSerialiseConcurrentClaims() throws Exception {
    LocalLeakyBucket leak = new LocalLeakyBucket(CONFIG, 1);
    double rate = 5000;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<Long>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        results.add(pool.submit(() -> {
          List<Long> slots = new ArrayList<>();
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          for (int i = 0; slots.size() < 100 && System.nanoTime() < deadline; i++) {
            SlotClaim c = claim(leak, "p", rate, 1 + i % 3, 2_000);
            for (int k = 0; k < c.granted(); k++) {
              slots.add(c.slotMicros(k));
            }
          }
          return slots;
        }));
      }
      List<Long> all = new ArrayList<>();
      for (Future<List<Long>> f : results) {
        all.addAll(f.get(30, TimeUnit.SECONDS));
      }
      Collections.sort(all);
      assertTrue(all.size() >= 400, "every thread got its 100 slots: " + all.size());
      for (int i = 1; i < all.size(); i++) {
        assertTrue(all.get(i) - all.get(i - 1) >= 200, "slots " + all.get(i - 1) + " and " + all.get(i));
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
