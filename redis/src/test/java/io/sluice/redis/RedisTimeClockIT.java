package io.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.RedisConfig;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link RedisTimeClock} against a real redis-server, with host clocks far off Redis's. */
@ExtendWith(RealServers.class)
class RedisTimeClockIT {

  @Test
  @DisplayName("reads a lower bound of Redis TIME, close to it, whether the host clock is an hour ahead or behind")
  void shouldReadALowerBoundOfRedisTime(RedisServerProcess redis) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      for (Duration skew : List.of(Duration.ofHours(1), Duration.ofHours(-1), Duration.ZERO)) {
        try (RedisTimeClock clock = RedisTimeClock.start(
            new RedisConfig(redis.uri()), Clock.offset(Clock.systemUTC(), skew), Duration.ofMillis(100))) {
          assertTrue(clock.onRedisTime(), "sampled before start returned");
          for (int i = 0; i < 20; i++) {
            long before = redisMillis(c);
            long read = clock.millis();
            long after = redisMillis(c);
            assertTrue(read <= after, "skew " + skew + ": read " + read + " ahead of Redis " + after);
            assertTrue(read >= before - 200, "skew " + skew + ": read " + read + " more than 200 ms behind Redis " + before);
          }
        }
      }
    } finally {
      client.shutdown();
    }
  }

  @Test
  @DisplayName("falls back to the local clock when Redis does not answer at start")
  void shouldFallBackToTheLocalClockWhenRedisIsDown() {
    Clock local = Clock.offset(Clock.systemUTC(), Duration.ofHours(1));
    try (RedisTimeClock clock = RedisTimeClock.start(new RedisConfig("redis://127.0.0.1:1"), local, Duration.ofSeconds(5))) {
      assertFalse(clock.onRedisTime());
      long read = clock.millis();
      assertTrue(Math.abs(read - local.millis()) < 1000, "the local clock");
    }
  }

  private static long redisMillis(StatefulRedisConnection<String, String> c) {
    List<String> time = c.sync().time();
    return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
  }
}
