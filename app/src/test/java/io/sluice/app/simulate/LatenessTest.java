package io.sluice.app.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LatenessTest {
  @Test
  @DisplayName("below 512 ms every value is its own bucket: quantiles are exact")
  void shouldBeExactBelowHalfASecond() {
    Lateness l = new Lateness();
    for (int v = 1; v <= 100; v++) {
      l.record(v);
    }
    assertEquals(50, l.quantile(0.5));
    assertEquals(99, l.quantile(0.99));
    assertEquals(100, l.max());
    assertEquals(100, l.count());
  }

  @Test
  @DisplayName("above it a quantile is within 1/256 below the value recorded, and the max is exact")
  void shouldBeWithinAFractionOfAPercentAbove() {
    for (long v : new long[] {512, 513, 1000, 2047, 86_399_999L, 3_000_000_000L}) {
      Lateness l = new Lateness();
      l.record(v);
      long q = l.quantile(0.5);
      assertTrue(q <= v && q >= v - v / 256 - 1, v + " read back as " + q);
      assertEquals(v, l.max());
    }
  }

  @Test
  @DisplayName("nothing recorded reads as 0; a negative value counts as 0")
  void shouldReadEmptyAsZero() {
    Lateness l = new Lateness();
    assertEquals(0, l.quantile(0.99));
    l.record(-5);
    assertEquals(0, l.max());
    assertEquals(1, l.count());
  }

  @Test
  @DisplayName("two histograms added read exactly as one that recorded both's values")
  void shouldAddAsIfOneHadRecordedAll() {
    Lateness a = new Lateness();
    Lateness b = new Lateness();
    Lateness both = new Lateness();
    for (long v = 0; v < 200_000; v += 37) {
      (v % 3 == 0 ? a : b).record(v * 7);
      both.record(v * 7);
    }
    a.add(b);
    assertEquals(both.count(), a.count());
    assertEquals(both.max(), a.max());
    for (double q : new double[] {0.01, 0.5, 0.9, 0.99, 1.0}) {
      assertEquals(both.quantile(q), a.quantile(q), "quantile " + q);
    }
  }
}
