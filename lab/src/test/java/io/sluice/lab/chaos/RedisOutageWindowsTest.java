package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RedisOutageWindowsTest {
  private static final long GRACE = 10_000;

  private static long[] w(long from, long to) {
    return new long[] {from, to};
  }

  @Test
  @DisplayName("a Redis outage alone loosens the bound until the grace after Redis is back")
  void redisAlone() {
    List<long[]> windows = RedisOutageWindows.of(List.of(w(23_000, 27_000)), List.of(), GRACE);
    assertEquals(1, windows.size());
    assertArrayEquals(w(23_000, 37_000), windows.get(0));
  }

  @Test
  @DisplayName("a broker outage that begins within the grace keeps the window open until the grace after the broker is back (the chaos run's 24 s circuit)")
  void brokerAwayDuringTheGrace() {
    List<long[]> windows = RedisOutageWindows.of(List.of(w(23_000, 27_000)),
        List.of(w(29_000, 46_000)), GRACE);
    assertArrayEquals(w(23_000, 56_000), windows.get(0));
  }

  @Test
  @DisplayName("a broker outage after the grace, or one that ended before Redis went, changes nothing")
  void unrelatedBrokerOutages() {
    List<long[]> windows = RedisOutageWindows.of(List.of(w(23_000, 27_000)),
        List.of(w(38_000, 50_000), w(1_000, 5_000)), GRACE);
    assertArrayEquals(w(23_000, 37_000), windows.get(0));
  }

  @Test
  @DisplayName("broker outages chained within each other's grace extend the window in turn, in any order")
  void chained() {
    List<long[]> windows = RedisOutageWindows.of(List.of(w(0, 1_000)),
        List.of(w(25_000, 30_000), w(5_000, 20_000)), GRACE);
    assertArrayEquals(w(0, 40_000), windows.get(0));
  }
}
