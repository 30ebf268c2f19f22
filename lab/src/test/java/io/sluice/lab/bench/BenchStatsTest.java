package io.sluice.lab.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BenchStatsTest {
  private static final double EPS = 1e-9;

  @Test
  @DisplayName("percentiles are nearest-rank: an observed value, never an interpolation")
  void nearestRank() {
    double[] v = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
    assertEquals(5, BenchStats.percentile(v, 50), EPS);
    assertEquals(10, BenchStats.percentile(v, 99), EPS);
    assertEquals(1, BenchStats.percentile(v, 1), EPS);
    assertEquals(10, BenchStats.percentile(v, 100), EPS);
    assertEquals(9, BenchStats.percentile(v, 90), EPS);
    assertTrue(Double.isNaN(BenchStats.percentile(new double[0], 50)));
    assertThrows(IllegalArgumentException.class, () -> BenchStats.percentile(v, 0));
  }

  @Test
  @DisplayName("the percentile leaves its input unsorted")
  void doesNotSortTheInput() {
    double[] v = {3, 1, 2};
    BenchStats.percentile(v, 50);
    assertArrayEquals(new double[] {3, 1, 2}, v, EPS);
  }

  @Test
  @DisplayName("max in window counts instants in [t, t + window), so an instant exactly a window later starts a new one")
  void maxInWindow() {
    long[] t = {0, 100, 200, 999, 1000, 1001, 1002, 1500};
    // [0, 1000) holds 0 .. 999 (four), not 1000; [100, 1100) holds 100 .. 1002: six, the most.
    assertEquals(6, BenchStats.maxInWindow(t, 1000));
    // [1000, 2000) holds 1000 .. 1500; [999, 1999) one more.
    assertEquals(5, BenchStats.maxInWindow(new long[] {999, 1000, 1001, 1002, 1500, 2500}, 1000));
    assertEquals(1, BenchStats.maxInWindow(new long[] {0, 10, 20}, 10));
    assertEquals(0, BenchStats.maxInWindow(new long[0], 1000));
    assertThrows(IllegalArgumentException.class, () -> BenchStats.maxInWindow(new long[] {5, 1}, 10));
  }

  @Test
  @DisplayName("evenly spaced calls at 10 a second: rate 10, every gap 100 ms, 10 in any second")
  void evenCalls() {
    long[] t = new long[101];
    for (int i = 0; i < t.length; i++) {
      t[i] = i * 100_000_000L;
    }
    assertEquals(10, BenchStats.rate(t, 1e9), EPS);
    double[] gaps = BenchStats.gaps(t);
    assertEquals(100, gaps.length);
    assertEquals(100_000_000, BenchStats.percentile(gaps, 99), EPS);
    assertEquals(10, BenchStats.maxInWindow(t, 1_000_000_000L));
    assertTrue(Double.isNaN(BenchStats.rate(new long[] {7}, 1e9)));
  }

  @Test
  @DisplayName("Jain's index is 1 for equal shares and 1/n when one has everything")
  void jain() {
    assertEquals(1, BenchStats.jain(new double[] {3, 3, 3, 3}), EPS);
    assertEquals(0.25, BenchStats.jain(new double[] {8, 0, 0, 0}), EPS);
    // (1 + 2)^2 / (2 * (1 + 4)) = 0.9
    assertEquals(0.9, BenchStats.jain(new double[] {1, 2}), EPS);
    assertEquals(1, BenchStats.jain(new double[] {0, 0}), EPS);
  }

  @Test
  @DisplayName("Zipf weights fall as 1/k and sum to 1")
  void zipf() {
    double[] w = BenchStats.zipf(3, 1);
    double h = 1 + 0.5 + 1.0 / 3;
    assertArrayEquals(new double[] {1 / h, 0.5 / h, (1.0 / 3) / h}, w, EPS);
    assertEquals(1, Arrays.stream(BenchStats.zipf(1000, 1)).sum(), 1e-12);
  }

  @Test
  @DisplayName("the allowance puts the asked fraction of events over it")
  void allowance() {
    // Two tenants with 75 and 25 of 100 events: an allowance of 25 puts 50 (of the first) over.
    double l = BenchStats.allowanceFor(new double[] {0.75, 0.25}, 100, 0.5);
    assertEquals(25, l, 1e-6);
    double[] w = BenchStats.zipf(1000, 1);
    double zipfAllowance = BenchStats.allowanceFor(w, 100_000, 0.5);
    assertEquals(50_000, BenchStats.excess(w, 100_000, zipfAllowance), 1e-3);
  }
}
