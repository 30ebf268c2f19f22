package io.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.FakeClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisTimeClock} on a fake Redis and a fake local clock. The sampler's period is an hour,
 * so only the samples the test takes ({@code sample()}) count.
 */
class RedisTimeClockTest {
  private static final Duration NEVER = Duration.ofHours(1);

  /** A Redis whose clock is the local one minus {@code behind}, down while {@code down} is set. */
  private static final class FakeRedis implements RedisTimeClock.TimeSourceOpener {
    final FakeClock local;
    long behindMillis;
    boolean down;
    int opens;

    FakeRedis(FakeClock local, long behindMillis) {
      this.local = local;
      this.behindMillis = behindMillis;
    }

    @Override
    public RedisTimeClock.TimeSource open() throws Exception {
      if (down) {
        throw new IllegalStateException("Redis at redis://:secret@host does not answer");
      }
      opens++;
      return () -> {
        if (down) {
          throw new java.util.concurrent.TimeoutException("no answer");
        }
        return (local.millis() - behindMillis) * 1000;
      };
    }
  }

  @Test
  @DisplayName("reads Redis's clock, not a local clock 5 s ahead of it")
  void shouldReadRedissClockNotTheLocalOne() {
    FakeClock local = FakeClock.atMillis(1_000_000);
    FakeRedis redis = new FakeRedis(local, 5000);
    try (RedisTimeClock clock = RedisTimeClock.start(local, redis, NEVER)) {
      assertTrue(clock.onRedisTime());
      local.advanceMillis(250);
      assertEquals(1_000_000 + 250 - 5000 - 1 - 1, clock.millis(), "Redis time less rounding and drift margins");
      assertEquals(Instant.ofEpochMilli(clock.millis()), clock.instant());
    }
  }

  @Test
  @DisplayName("keeps the last offset while Redis does not answer, and takes new samples when it does again")
  void shouldKeepTheLastOffsetWhileRedisIsDown() {
    FakeClock local = FakeClock.atMillis(1_000_000);
    FakeRedis redis = new FakeRedis(local, 5000);
    try (RedisTimeClock clock = RedisTimeClock.start(local, redis, NEVER)) {
      redis.down = true;
      local.advanceMillis(10_000);
      clock.sample();
      assertEquals(1_000_000 + 10_000 - 5000 - 1 - 1, clock.millis(), "still Redis's clock, from the last sample");
      redis.down = false;
      redis.behindMillis = 6000; // Redis's clock was stepped back meanwhile
      clock.sample();
      clock.sample();
      clock.sample();
      clock.sample(); // four new samples push the old one out
      assertEquals(1_000_000 + 10_000 - 6000 - 1, clock.millis(), "the new offset");
      assertEquals(1, redis.opens, "one connection, kept across the outage");
    }
  }

  @Test
  @DisplayName("falls back to the local clock when Redis is down at start, and switches to Redis's once it answers")
  void shouldFallBackToTheLocalClockUntilRedisAnswers() {
    FakeClock local = FakeClock.atMillis(1_000_000);
    FakeRedis redis = new FakeRedis(local, 5000);
    redis.down = true;
    try (RedisTimeClock clock = RedisTimeClock.start(local, redis, NEVER)) {
      assertFalse(clock.onRedisTime());
      assertEquals(1_000_000, clock.millis(), "the local clock");
      redis.down = false;
      clock.sample();
      assertTrue(clock.onRedisTime());
      assertEquals(1_000_000 - 5000 - 1, clock.millis());
    }
  }

  @Test
  @DisplayName("the default local clock is monotonic: it advances with nanoTime from the system clock at start")
  void shouldAnchorTheMonotonicClockAtTheSystemClock() {
    long before = System.currentTimeMillis();
    Clock monotonic = RedisTimeClock.MonotonicClock.anchoredNow();
    long read = monotonic.millis();
    long after = System.currentTimeMillis();
    assertTrue(read >= before - 1 && read <= after + 1, before + " <= " + read + " <= " + after);
    long again = monotonic.millis();
    assertTrue(again >= read, "never goes back");
  }

  /** A local clock the test moves. */

}
