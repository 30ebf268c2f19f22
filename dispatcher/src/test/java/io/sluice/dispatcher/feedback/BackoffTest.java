package io.sluice.dispatcher.feedback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(5));

  @Test
  @DisplayName("the bound doubles with every failure until the cap")
  void boundDoublesUntilCap() {
    assertEquals(1_000, backoff.boundMillis(1));
    assertEquals(2_000, backoff.boundMillis(2));
    assertEquals(16_000, backoff.boundMillis(5));
    assertEquals(256_000, backoff.boundMillis(9));
    assertEquals(300_000, backoff.boundMillis(10));
    assertEquals(300_000, backoff.boundMillis(1_000), "no overflow for absurd attempt counts");
  }

  @Test
  @DisplayName("full jitter: waits spread uniformly over [0, bound)")
  void fullJitterSpreadsUniformly() {
    Random random = new Random(7);
    int[] quarters = new int[4];
    int n = 40_000;
    for (int i = 0; i < n; i++) {
      long d = backoff.delayMillis(3, random::nextDouble);
      assertTrue(d >= 0 && d < 4_000, "delay " + d + " outside [0, 4000)");
      quarters[(int) (d / 1_000)]++;
    }
    for (int q : quarters) {
      assertTrue(Math.abs(q - n / 4) < n / 40, "quarters not uniform: " + q);
    }
  }

  @Test
  @DisplayName("the extremes of the random source map to 0 and just under the bound")
  void extremes() {
    assertEquals(0, backoff.delayMillis(2, () -> 0.0));
    assertEquals(1_999, backoff.delayMillis(2, () -> 0.9999999));
  }

  @Test
  @DisplayName("a cap below the base is a configuration error")
  void capBelowBase() {
    assertThrows(IllegalArgumentException.class,
        () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    assertThrows(IllegalArgumentException.class,
        () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
  }
}
