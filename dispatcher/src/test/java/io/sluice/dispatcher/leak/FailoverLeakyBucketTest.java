package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.redis.RedisCircuit;
import io.sluice.config.RedisDownPolicy;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The failover leak's use of the circuit, with a scripted Redis leak and a fake clock. */
class FailoverLeakyBucketTest {
  private static final LeakConfig CONFIG = new LeakConfig(0.1, 30_000_000);

  /** A Redis leak that answers (one slot now) or fails, as told; counts the calls it gets. */
  private static final class ScriptedRedis implements LeakyBucket {
    volatile boolean up = true;
    final AtomicInteger claims = new AtomicInteger();
    final AtomicInteger throttles = new AtomicInteger();
    final AtomicInteger busyCalls = new AtomicInteger();
    volatile boolean busyScriptFails;
    /** A provider whose claims fail with a script error (Redis up, the script failing). */
    volatile String scriptFailsFor = "";

    @Override
    public CompletionStage<SlotClaim> claim(String provider, double rate, int wanted, long lookahead) {
      claims.incrementAndGet();
      return up ? CompletableFuture.completedFuture(new SlotClaim(0, 1, 0, 10_000, 10_000, 1))
          : CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
    }

    @Override
    public CompletionStage<SlotClaim> claim(String provider, ProviderLimits limits,
        LimitedClaim request) {
      if (provider.equals(scriptFailsFor)) {
        claims.incrementAndGet();
        return CompletableFuture.failedFuture(new io.lettuce.core.RedisCommandExecutionException(
            "ERR user_script:212: attempt to compare nil with number"));
      }
      return claim(provider, limits.ratePerSecond(), request.wanted(), request.lookaheadMicros());
    }

    @Override
    public CompletionStage<SlotClaim> claim(String lane, double rate, int wanted, long lookahead,
        ProviderTotal total) {
      return claim(lane, rate, wanted, lookahead);
    }

    @Override
    public CompletionStage<Void> settle(String provider, ProviderLimits limits, long slotMicros,
        long reserved, long actual) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> release(String provider, String leaseId) {
      return up ? CompletableFuture.completedFuture(null)
          : CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
    }

    @Override
    public CompletionStage<Map<String, Integer>> busyTenants(String provider, String member,
        Map<String, Integer> busyByTier, long ttlMicros) {
      busyCalls.incrementAndGet();
      if (busyScriptFails) {
        return CompletableFuture.failedFuture(new IllegalStateException("ERR unknown mode busy"));
      }
      return up ? CompletableFuture.completedFuture(Map.of("gold", 10))
          : CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
    }

    @Override
    public CompletionStage<ThrottleDecision> throttle(String provider, double rate, long retryAfterMillis,
        long startedAtMicros) {
      throttles.incrementAndGet();
      return up ? CompletableFuture.completedFuture(new ThrottleDecision(0, true, 0.5, 0))
          : CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
    }
  }

  private final AtomicLong clock = new AtomicLong();
  private final ScriptedRedis redis = new ScriptedRedis();
  private final RedisCircuit circuit = new RedisCircuit("test", 250, 10_000, 5_000, clock::get, s -> {});

  private FailoverLeakyBucket leak(RedisDownPolicy policy) {
    return new FailoverLeakyBucket(redis, new LocalLeakyBucket(CONFIG, 1, () -> clock.get() * 1000),
        Map.of("p", policy, "q", policy), circuit, () -> 2);
  }

  /** 100 calls a second, 10 per sliding minute: Redis may have granted all 10 just before. */
  private static final ProviderLimits WINDOWED = new ProviderLimits(java.util.List.of(
      io.sluice.config.ProviderLimit.rate(100),
      new io.sluice.config.ProviderLimit(io.sluice.config.ProviderLimit.Kind.CALLS,
          10, java.time.Duration.ofMinutes(1), io.sluice.config.ProviderLimit.Window.SLIDING,
          java.time.Duration.ZERO)));

  private static SlotClaim claimWindowed(LeakyBucket leak, String provider) throws Exception {
    return leak.claim(provider, WINDOWED, new LimitedClaim(10, 1_000_000, 1, "l", 5_000_000))
        .toCompletableFuture().get();
  }

  private static SlotClaim claim(LeakyBucket leak) throws Exception {
    return leak.claim("p", 10, 1, 100_000).toCompletableFuture().get();
  }

  @Test
  @DisplayName("local: while Redis is down an endpoint under a total claims both lines in process, at this instance's share of each")
  void shouldKeepBothLinesLocallyAtThisInstancesShareWhileRedisIsDown() throws Exception {
    FailoverLeakyBucket leak = leak(RedisDownPolicy.LOCAL);
    redis.up = false;
    // Two instances: the endpoint at 10/s leaks 5/s here, the total of 4/s leaks 2/s here.
    ProviderTotal total = new ProviderTotal("p", 4);
    SlotClaim first = leak.claim(total.laneKeyName("p/acme"), 10, 1, 100_000, total)
        .toCompletableFuture().get();
    assertEquals(1, first.granted());
    assertEquals(500_000, first.intervalMicros(), "the joint spacing: the total's 2/s here");
    SlotClaim other = leak.claim(total.laneKeyName("p/globex"), 10, 1, 100_000, total)
        .toCompletableFuture().get();
    assertEquals(0, other.granted(), "another endpoint of p waits for the total's next slot");
    assertEquals(first.firstSlotMicros() + 500_000 - 100_000, other.retryAtMicros());
  }

  @Test
  @DisplayName("a 429 reported while the circuit may probe resolves the probe: claims reach Redis again")
  void shouldResolveAProbeTakenByAThrottle() throws Exception {
    FailoverLeakyBucket leak = leak(RedisDownPolicy.FAIL_CLOSED);
    redis.up = false;
    assertThrows(ExecutionException.class, () -> claim(leak), "fail_closed: no slot");
    assertEquals(RedisCircuit.State.OPEN, circuit.state());
    redis.up = true;
    clock.set(300);
    // The throttle is the first call after the backoff, so it is the probe.
    leak.throttle("p", 10, 1000, 0).toCompletableFuture().get();
    assertEquals(1, redis.throttles.get());
    assertEquals(RedisCircuit.State.CLOSED, circuit.state(), "the probe's success was reported");
    int before = redis.claims.get();
    assertEquals(1, claim(leak).granted());
    assertEquals(before + 1, redis.claims.get(), "the claim went to Redis");
  }

  @Test
  @DisplayName("a failed throttle probe reopens the circuit with the backoff doubled")
  void shouldReopenOnAFailedThrottleProbe() throws Exception {
    FailoverLeakyBucket leak = leak(RedisDownPolicy.FAIL_OPEN);
    redis.up = false;
    claim(leak);
    clock.set(300);
    ThrottleDecision local = leak.throttle("p", 10, 1000, 0).toCompletableFuture().get();
    assertTrue(local.pausedUntilMicros() > 0, "answered by the local leak");
    assertEquals(RedisCircuit.State.OPEN, circuit.state());
    assertEquals(300 + 500, circuit.status().nextProbeAtMillis());
  }

  @Test
  @DisplayName("each policy while open: fail_closed refuses, fail_open and local leak in process")
  void shouldFollowThePolicyWhileOpen() throws Exception {
    redis.up = false;
    assertThrows(ExecutionException.class, () -> claim(leak(RedisDownPolicy.FAIL_CLOSED)));
    int calls = redis.claims.get();
    SlotClaim open = claim(leak(RedisDownPolicy.FAIL_OPEN));
    SlotClaim local = claim(leak(RedisDownPolicy.LOCAL));
    assertEquals(calls, redis.claims.get(), "the open circuit keeps calls off Redis");
    assertEquals(100_000, open.intervalMicros(), "fail_open: the full rate (10/s) here");
    assertEquals(200_000, local.intervalMicros(), "local: half of it, for 2 instances");
  }

  @Test
  @DisplayName("local: a window Redis kept is held when Redis stops answering, until it has passed;"
      + " then this instance's share of it")
  void shouldHoldWindowsWhenFallingBackLocally() throws Exception {
    FailoverLeakyBucket leak = leak(RedisDownPolicy.LOCAL);
    assertEquals(1, claimWindowed(leak, "p").granted(), "through Redis");
    redis.up = false;
    clock.set(10);
    SlotClaim first = claimWindowed(leak, "p");
    assertEquals(0, first.granted(), "Redis may have granted the whole window just before");
    assertTrue(first.firstSlotMicros() >= (10 + 1_000 + 60_000) * 1000L,
        "nothing until a window after the lookahead: " + first);
    clock.set(10 + 1_000 + 60_000);
    assertEquals(5, claimWindowed(leak, "p").granted(), "then half the window, for 2 instances");
  }

  @Test
  @DisplayName("fail_open: the rate whole, but windows at this instance's share and held first")
  void shouldNotGrantAWholeWindowPerInstanceUnderFailOpen() throws Exception {
    FailoverLeakyBucket leak = leak(RedisDownPolicy.FAIL_OPEN);
    redis.up = false;
    assertEquals(0, claimWindowed(leak, "p").granted(), "held as under local");
    clock.set(1_000 + 60_000);
    SlotClaim open = claimWindowed(leak, "p");
    assertEquals(10_000, open.intervalMicros(), "the full rate (100/s)");
    assertEquals(5, open.granted(), "5 of the 10-call window for each of 2 instances, not 10 each");
  }

  @Test
  @DisplayName("a claim failing with its own script error sends only its provider to the policy: "
      + "the others stay on Redis")
  void shouldKeepTheCircuitClosedForAScriptError() throws Exception {
    FailoverLeakyBucket leak = leak(RedisDownPolicy.LOCAL);
    redis.scriptFailsFor = "q";
    claimWindowed(leak, "q"); // q falls back to its policy on its own error
    assertEquals(RedisCircuit.State.CLOSED, circuit.state(), "Redis answered: the error is q's");
    int before = redis.claims.get();
    assertEquals(1, claimWindowed(leak, "p").granted());
    assertEquals(before + 1, redis.claims.get(), "p's claim went to Redis");
  }

  @Test
  @DisplayName("busy tenants: the sums from Redis while it answers; counted alone while it does not")
  void shouldCountAnInstanceAloneWhileRedisIsDown() throws Exception {
    FailoverLeakyBucket leak = leak(RedisDownPolicy.LOCAL);
    assertEquals(Map.of("gold", 10), leak.busyTenants("p", "m", Map.of("gold", 3), 1_000_000)
        .toCompletableFuture().get());
    redis.up = false;
    assertEquals(Map.of("gold", 3), leak.busyTenants("p", "m", Map.of("gold", 3), 1_000_000)
        .toCompletableFuture().get());
    leak.claim("p", 10, 1, 0).toCompletableFuture().get(); // a failed claim opens the circuit
    int before = redis.busyCalls.get();
    assertEquals(Map.of("gold", 3), leak.busyTenants("p", "m", Map.of("gold", 3), 1_000_000)
        .toCompletableFuture().get());
    assertEquals(before, redis.busyCalls.get(), "the circuit is open: Redis is not asked");
  }

  @Test
  @DisplayName("busy tenants: a publication that fails on its own does not open the circuit")
  void shouldNotOpenTheCircuitWhenOnlyAPublicationFails() throws Exception {
    FailoverLeakyBucket leak = leak(RedisDownPolicy.LOCAL);
    redis.busyScriptFails = true;
    assertEquals(Map.of("gold", 3), leak.busyTenants("p", "m", Map.of("gold", 3), 1_000_000)
        .toCompletableFuture().get());
    assertEquals(RedisCircuit.State.CLOSED, circuit.state(), "claims still go to Redis");
  }
}
