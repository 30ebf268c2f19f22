package io.sluice.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.redis.RedisTimeSamples.Sample;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The lower bound of Redis's clock from samples. In these cases Redis's clock is ahead of or behind
 * the local one by a known amount, and Redis read its clock at a known point of the round trip, so
 * the true Redis time at every local instant is known and the bound is checked against it.
 */
class RedisTimeSamplesTest {
  private static final long LOCAL = 1_700_000_000_000L;

  @Test
  @DisplayName("redis time at the sample plus the local time since the reply, less 1 ms for rounding")
  void shouldBoundRedisTimeByTheSamplePlusTheLocalTimeSinceItsReply() {
    // Redis is 3 s behind; it read its clock 2 ms into a 4 ms round trip.
    long redisAtRead = LOCAL - 3000 + 2;
    RedisTimeSamples s = RedisTimeSamples.none(4).with(new Sample(redisAtRead * 1000 + 999, LOCAL + 4));
    assertEquals(redisAtRead - 1, s.lowerBoundMillis(LOCAL + 4), "at the reply");
    assertEquals(redisAtRead + 1000 - 1 - 1, s.lowerBoundMillis(LOCAL + 1004), "1 s later, less 1 ms for 100 ppm of drift");
    long trueRedis = LOCAL + 1004 - 3000;
    assertTrue(s.lowerBoundMillis(LOCAL + 1004) <= trueRedis, "never ahead of Redis");
    assertTrue(trueRedis - s.lowerBoundMillis(LOCAL + 1004) <= 4, "behind by at most the round trip and the margins");
  }

  @Test
  @DisplayName("a local clock 5 s ahead does not move the bound: it stays on Redis's clock")
  void shouldIgnoreTheLocalClocksOffset() {
    long redisNow = 1_000_000_000L;
    long localAhead = redisNow + 5000;
    RedisTimeSamples s = RedisTimeSamples.none(4).with(new Sample(redisNow * 1000, localAhead));
    assertEquals(redisNow + 100 - 1 - 1, s.lowerBoundMillis(localAhead + 100));
  }

  @Test
  @DisplayName("the best sample wins: a slow round trip does not loosen the bound")
  void shouldTakeTheHighestBoundOverTheKeptSamples() {
    // True Redis = local - 1000. A fast trip (Redis read 1 ms before the reply) and a slow one
    // (Redis read 200 ms before the reply).
    RedisTimeSamples s = RedisTimeSamples.none(4)
        .with(new Sample((LOCAL - 1000 - 1) * 1000, LOCAL))
        .with(new Sample((LOCAL + 500 - 1000 - 200) * 1000, LOCAL + 500));
    assertEquals(LOCAL + 600 - 1000 - 1 - 1 - 1, s.lowerBoundMillis(LOCAL + 600), "from the fast sample, 600 ms old");
  }

  @Test
  @DisplayName("keeps only the last samples: an old sample stops counting")
  void shouldKeepOnlyTheLastSamples() {
    RedisTimeSamples s = RedisTimeSamples.none(2)
        .with(new Sample(LOCAL * 1000, LOCAL))          // the best, but the oldest
        .with(new Sample((LOCAL - 50) * 1000, LOCAL))
        .with(new Sample((LOCAL - 60) * 1000, LOCAL));
    assertEquals(2, s.samples().size());
    assertEquals(LOCAL - 50 - 1, s.lowerBoundMillis(LOCAL));
  }

  @Test
  @DisplayName("the drift margin grows with the sample's age: 360 ms after an hour without a sample")
  void shouldWidenTheMarginWithTheSamplesAge() {
    RedisTimeSamples s = RedisTimeSamples.none(4).with(new Sample(LOCAL * 1000, LOCAL));
    long hour = 3_600_000;
    assertEquals(LOCAL + hour - 1 - 360, s.lowerBoundMillis(LOCAL + hour));
    // A local clock running 100 ppm fast has advanced hour + 360 ms while Redis advanced an hour.
    assertTrue(s.lowerBoundMillis(LOCAL + hour + 360) <= LOCAL + hour, "still not ahead of Redis");
  }

  @Test
  @DisplayName("a local clock stepping back lowers the bound; it never adds")
  void shouldLowerTheBoundWhenTheLocalClockStepsBack() {
    RedisTimeSamples s = RedisTimeSamples.none(4).with(new Sample(LOCAL * 1000, LOCAL));
    assertEquals(LOCAL - 2000 - 1, s.lowerBoundMillis(LOCAL - 2000));
  }

  @Test
  void shouldRefuseABoundWithoutSamples() {
    assertThrows(IllegalStateException.class, () -> RedisTimeSamples.none(4).lowerBoundMillis(LOCAL));
    assertThrows(IllegalArgumentException.class, () -> RedisTimeSamples.none(0));
  }
}
