package io.sluice.dispatcher.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OffsetTrackerTest {

  @Test
  @DisplayName("nothing read: nothing to commit")
  void emptyHasNothingToCommit() {
    assertEquals(OptionalLong.empty(), new OffsetTracker().committable());
  }

  @Test
  @DisplayName("commits up to the first unsettled offset, never past it")
  void commitsUpToFirstUnsettled() {
    OffsetTracker t = new OffsetTracker();
    for (long o = 10; o <= 14; o++) {
      t.track(o);
    }
    assertEquals(OptionalLong.of(10), t.committable());
    t.settle(10);
    t.settle(12);
    t.settle(13);
    assertEquals(OptionalLong.of(11), t.committable(), "11 is still in flight");
    t.settle(11);
    assertEquals(OptionalLong.of(14), t.committable());
    t.settle(14);
    assertEquals(OptionalLong.of(15), t.committable(), "all settled: one past the last read");
    assertEquals(0, t.unsettled());
  }

  @Test
  @DisplayName("gaps in offsets (compacted or transaction markers) do not block the commit")
  void gapsInOffsets() {
    OffsetTracker t = new OffsetTracker();
    t.track(3);
    t.track(7);
    t.settle(3);
    assertEquals(OptionalLong.of(7), t.committable());
    t.settle(7);
    assertEquals(OptionalLong.of(8), t.committable());
  }

  @Test
  @DisplayName("settling an unknown or already committed offset changes nothing")
  void unknownSettlementsIgnored() {
    OffsetTracker t = new OffsetTracker();
    t.track(5);
    t.settle(4);
    t.settle(99);
    assertEquals(OptionalLong.of(5), t.committable());
    assertEquals(1, t.unsettled());
  }

  @Test
  @DisplayName("offsets must be tracked in increasing order")
  void rejectsOutOfOrderTracking() {
    OffsetTracker t = new OffsetTracker();
    t.track(5);
    assertThrows(IllegalArgumentException.class, () -> t.track(5));
  }

  @Test
  @DisplayName("in any settlement order, the committable offset is the smallest unsettled one")
  void randomOrderMatchesTheDefinition() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      OffsetTracker t = new OffsetTracker();
      int n = 1 + random.nextInt(50);
      List<Long> offsets = new ArrayList<>();
      for (long o = 0; o < n; o++) {
        t.track(o * 2);
        offsets.add(o * 2);
      }
      Collections.shuffle(offsets, random);
      java.util.TreeSet<Long> unsettled = new java.util.TreeSet<>(offsets);
      for (long o : offsets) {
        t.settle(o);
        unsettled.remove(o);
        long expected = unsettled.isEmpty() ? 2L * (n - 1) + 1 : unsettled.first();
        assertEquals(expected, t.committable().getAsLong());
        assertTrue(t.unsettled() >= unsettled.size());
      }
    }
  }
}
