package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The gate's {@code local} fallback when a real redis-server stops answering, with a lease taken
 * from it still in hand: the decisions LimitStep makes (the limiter first, the local bucket
 * when Redis is unavailable, owing what it admits), on a server of this test's own (it is
 * stopped). Time moves by an offset on the local clocks, not by sleeping.
 */
class LocalFallbackRedisDownIT {
  private RedisServerProcess server;
  private StoreOnRedis on;
  private final AtomicLong offsetNanos = new AtomicLong();

  @BeforeEach
  void start() {
    server = RedisServerProcess.start();
    on = StoreOnRedis.open(server);
  }

  @AfterEach
  void stop() {
    on.close();
    server.close();
  }

  private long nanos() {
    return System.nanoTime() + offsetNanos.get();
  }

  private long millis() {
    return System.currentTimeMillis() + offsetNanos.get() / 1_000_000;
  }

  @Test
  @DisplayName("Redis stops with a lease of 5 in hand: a second later the lease and the local "
      + "bucket together admit 6 at once (capacity 6), not the lease plus a full bucket")
  void shouldNotSellAgainWhatALeaseHolds() {
    GateLimiter gate = new GateLimiter(on.store(), new RedisCircuit(60_000, 60_000, s -> {}),
        this::nanos, Duration.ofMillis(300), Duration.ofSeconds(5), 5, (k, n) -> {});
    LocalBuckets local = new LocalBuckets(() -> 1.0, this::nanos);
    BucketKey key = new BucketKey("api", "leased");
    BucketSpec spec = new BucketSpec(6, 6, 10_000_000);
    assertInstanceOf(LimiterDecision.Admit.class, gate.decide(key, spec, 1, false));
    assertEquals(5, gate.held(key).units(), "a lease of 5 (demand 1/s over a 5 s lease target)");

    server.stop();
    offsetNanos.addAndGet(Duration.ofSeconds(1).toNanos());
    int admitted = 0;
    for (int i = 0; i < 11; i++) {
      LimiterDecision d = gate.decide(key, spec, 1, false);
      if (d instanceof LimiterDecision.Unavailable) {
        d = local.decide(key, spec, 1, millis(), false, gate.known(key), gate.held(key));
        gate.owe(key, 1);
      }
      if (d instanceof LimiterDecision.Admit) {
        admitted++;
      }
    }
    assertEquals(6, admitted, "Redis's bucket refills only to capacity minus the lease's 5: "
        + "5 from the lease and 1 more");
  }
}
