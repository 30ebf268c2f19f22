package io.sluice.gate.limiter;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Renewals against the script on a real redis-server, answered on Lettuce's thread while the
 * caller goes on: a busy tenant well inside its quota is served at once, event after event, from
 * leases that were renewed ahead, and admits no more than its bucket allows.
 */
@ExtendWith(RealServers.class)
class LeaseRenewalIT {
  private static StoreOnRedis on;

  @BeforeAll
  static void connect(RedisServerProcess server) {
    on = StoreOnRedis.open(server);
  }

  @AfterAll
  static void disconnect() {
    on.close();
  }

  @Test
  void shouldServeABusyTenantFromRenewedLeasesAtOnceAndWithinItsBucket() throws Exception {
    // 5,000 events over about a second against a bucket of 100,000 at 100,000/s: every event goes
    // at once; after the first few, leases are renewed ahead rather than asked for with an event.
    AtomicInteger calls = new AtomicInteger();
    GateLimiter gate = new GateLimiter(on.store(), new RedisCircuit(100, 1_000, s -> {}), System::nanoTime,
        Duration.ofSeconds(2), Duration.ofMillis(100), 64, (k, n) -> calls.incrementAndGet());
    BucketKey key = new BucketKey("api", "renewed");
    BucketSpec spec = new BucketSpec(100_000, 100_000, 1_000_000);
    long start = System.nanoTime();
    for (int i = 0; i < 5_000; i++) {
      LimiterDecision d = gate.decide(key, spec, 1, false);
      assertTrue(d instanceof LimiterDecision.Admit, "event " + i + ": " + d);
      while (System.nanoTime() - start < (i + 1) * 200_000L) {
        Thread.onSpinWait();
      }
    }
    // 5,000 events in leases of up to 65 units: at least 76 round trips, and far fewer than one
    // per event. (A renewal that could not become a lease would have failed an event above.)
    Await.atMost(Duration.ofSeconds(5), calls::get, n -> n >= 5_000 / 65);
    assertTrue(calls.get() >= 5_000 / 65 && calls.get() < 5_000 / 4, "round trips: " + calls.get());
  }
}
