package io.sluice.app.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TimelineTest {
  @Test
  @DisplayName("steps come out by time, and those due at the same microsecond in the order they were added")
  void shouldGiveStepsInTimeThenAddedOrder() {
    Timeline<String> t = new Timeline<>();
    t.add(30, 0, "c");
    t.add(10, 1, "a1");
    t.add(20, 2, "b");
    t.add(10, 3, "a2");
    t.add(10, 4, "a3");
    List<String> out = new ArrayList<>();
    while (!t.isEmpty()) {
      out.add(t.firstAt() + ":" + t.firstKind() + ":" + t.firstItem());
      t.removeFirst();
    }
    assertEquals(List.of("10:1:a1", "10:3:a2", "10:4:a3", "20:2:b", "30:0:c"), out);
  }

  @Test
  @DisplayName("a hundred thousand steps added at random, some removed on the way, come out sorted past its first size")
  void shouldStaySortedAsItGrows() {
    Timeline<Long> t = new Timeline<>();
    SplittableRandom r = new SplittableRandom(7);
    long lastOut = Long.MIN_VALUE;
    int out = 0;
    for (int i = 0; i < 100_000; i++) {
      long at = lastOut == Long.MIN_VALUE ? r.nextLong(1_000_000) : lastOut + r.nextLong(1_000_000);
      t.add(at, 0, at);
      if (i % 3 == 0) {
        assertTrue(t.firstAt() >= lastOut);
        lastOut = t.firstAt();
        assertEquals(lastOut, (long) t.firstItem());
        t.removeFirst();
        out++;
      }
    }
    while (!t.isEmpty()) {
      assertTrue(t.firstAt() >= lastOut, "out of order at " + out);
      lastOut = t.firstAt();
      t.removeFirst();
      out++;
    }
    assertEquals(100_000, out);
  }
}
