package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CachedResultTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AtomicInteger probes = new AtomicInteger();

  private final CachedResult<HealthCheck.Result> cached = new CachedResult<>(Duration.ofSeconds(1),
      nanos::get,
      () -> HealthCheck.Result.reachable("probe " + probes.incrementAndGet()));

  @Test
  void shouldReuseAnAnswerWithinItsPeriod() {
    assertEquals("probe 1", cached.get().detail());
    nanos.addAndGet(Duration.ofMillis(999).toNanos());
    assertEquals("probe 1", cached.get().detail());
    assertEquals(1, probes.get());
  }

  @Test
  void shouldProbeAgainOnceThePeriodHasPassed() {
    cached.get();
    nanos.addAndGet(Duration.ofSeconds(1).toNanos());
    assertEquals("probe 2", cached.get().detail());
  }

  @Test
  void shouldCountThePeriodFromWhenTheProbeFinished() {
    CachedResult<HealthCheck.Result> slow = new CachedResult<>(Duration.ofSeconds(1), nanos::get,
        () -> {
          nanos.addAndGet(Duration.ofSeconds(2).toNanos()); // the probe takes 2 s (a timeout)
          return HealthCheck.Result.unreachable("probe " + probes.incrementAndGet());
        });
    slow.get();
    nanos.addAndGet(Duration.ofMillis(500).toNanos());
    assertEquals("probe 1", slow.get().detail());
  }

  @Test
  void shouldProbeEveryTimeWithAZeroPeriod() {
    CachedResult<HealthCheck.Result> uncached = new CachedResult<>(Duration.ZERO, nanos::get,
        () -> HealthCheck.Result.reachable("probe " + probes.incrementAndGet()));
    uncached.get();
    assertEquals("probe 2", uncached.get().detail());
  }

  @Test
  void shouldSayHowOldTheAnswerIsFromWhenItsProbeFinished() {
    assertEquals(Duration.ZERO, cached.aged().age());
    nanos.addAndGet(Duration.ofMillis(700).toNanos());
    assertEquals(new CachedResult.Aged<>(cached.get(), Duration.ofMillis(700)), cached.aged());
    nanos.addAndGet(Duration.ofMillis(300).toNanos());
    assertEquals(Duration.ZERO, cached.aged().age(), "probed again: a fresh answer");
  }
}
