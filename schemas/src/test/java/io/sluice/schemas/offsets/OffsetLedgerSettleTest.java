package io.sluice.schemas.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The ledger as the dispatcher uses it (truncate on overflow, nothing committable before the first
 * read): records settle in any order, the commit stops at the first unsettled one. The relay's use:
 * {@link OffsetLedgerTest}.
 */
class OffsetLedgerSettleTest {

  @Test
  @DisplayName("what it settled still holds after the partition is lost uncommitted, merged with an older commit")
  void settledOffsetsSurviveALostPartition() {
    OffsetLedger t = tracker(SettledOffsets.NONE);
    for (long o = 10; o <= 20; o++) {
      t.read(o);
    }
    for (long o : new long[] {10, 11, 13, 14, 15, 18, 19, 20}) {
      t.settle(o);
    }
    // Unsettled: 12, 16, 17. Its commits failed (a broker restart) and the group fenced it.
    SettledOffsets ours = t.settled();
    // The last commit that went through said offset 10, with 11 settled beyond it.
    SettledOffsets committed = SettledOffsets.of(11, 12);
    SettledOffsets merged = committed.union(ours.from(10L));

    assertEquals(SettledOffsets.of(10, 12, 13, 16, 18, 21), merged);
    for (long o : new long[] {12, 16, 17, 21}) {
      assertTrue(!merged.contains(o), o + " was never settled: it must be called");
    }
  }

  @Test
  @DisplayName("union merges overlapping and touching intervals")
  void unionOfIntervals() {
    assertEquals(SettledOffsets.of(1, 9, 12, 13), SettledOffsets.of(1, 3, 5, 7).union(SettledOffsets.of(2, 5, 7, 9, 12, 13)));
    assertEquals(SettledOffsets.of(4, 6), SettledOffsets.NONE.union(SettledOffsets.of(4, 6)));
    assertEquals(SettledOffsets.of(4, 6), SettledOffsets.of(4, 6).union(SettledOffsets.NONE));
  }

  private static OffsetLedger tracker(SettledOffsets inherited) {
    return new OffsetLedger(-1, inherited, Overflow.truncate());
  }

  @Test
  @DisplayName("nothing read: nothing to commit")
  void emptyHasNothingToCommit() {
    assertEquals(OptionalLong.empty(), tracker(SettledOffsets.NONE).committable());
  }

  @Test
  @DisplayName("commits up to the first unsettled offset, never past it")
  void commitsUpToFirstUnsettled() {
    OffsetLedger t = tracker(SettledOffsets.NONE);
    for (long o = 10; o <= 14; o++) {
      t.read(o);
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
    assertEquals(0, t.waiting());
  }

  @Test
  @DisplayName("gaps in offsets (compacted or transaction markers) do not block the commit")
  void gapsInOffsets() {
    OffsetLedger t = tracker(SettledOffsets.NONE);
    t.read(3);
    t.read(7);
    t.settle(3);
    assertEquals(OptionalLong.of(7), t.committable());
    t.settle(7);
    assertEquals(OptionalLong.of(8), t.committable());
  }

  @Test
  @DisplayName("settling an unknown or already committed offset changes nothing")
  void unknownSettlementsIgnored() {
    OffsetLedger t = tracker(SettledOffsets.NONE);
    t.read(5);
    t.settle(4);
    t.settle(99);
    assertEquals(OptionalLong.of(5), t.committable());
    assertEquals(1, t.waiting());
  }

  @Test
  @DisplayName("offsets must be tracked in increasing order")
  void rejectsOutOfOrderTracking() {
    OffsetLedger t = tracker(SettledOffsets.NONE);
    t.read(5);
    assertThrows(IllegalArgumentException.class, () -> t.read(5));
  }

  @Test
  @DisplayName("in any settlement order, the committable offset is the smallest unsettled one")
  void randomOrderMatchesTheDefinition() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      OffsetLedger t = tracker(SettledOffsets.NONE);
      int n = 1 + random.nextInt(50);
      List<Long> offsets = new ArrayList<>();
      for (long o = 0; o < n; o++) {
        t.read(o * 2);
        offsets.add(o * 2);
      }
      Collections.shuffle(offsets, random);
      java.util.TreeSet<Long> unsettled = new java.util.TreeSet<>(offsets);
      for (long o : offsets) {
        t.settle(o);
        unsettled.remove(o);
        long expected = unsettled.isEmpty() ? 2L * (n - 1) + 1 : unsettled.first();
        assertEquals(expected, t.committable().getAsLong());
        assertTrue(t.waiting() >= unsettled.size());
      }
    }
  }

  @Test
  @DisplayName("the settled offsets beyond the commit are those between and after the unsettled")
  void settledAheadBetweenUnsettled() {
    OffsetLedger t = tracker(SettledOffsets.NONE);
    for (long o = 10; o <= 20; o++) {
      t.read(o);
    }
    for (long o = 10; o <= 20; o++) {
      if (o != 11 && o != 15) {
        t.settle(o);
      }
    }
    assertEquals(OptionalLong.of(11), t.committable());
    assertEquals(SettledOffsets.of(12, 15, 16, 21), t.settledAhead());
    t.settle(11);
    assertEquals(OptionalLong.of(15), t.committable());
    assertEquals(SettledOffsets.of(16, 21), t.settledAhead());
    t.settle(15);
    assertEquals(SettledOffsets.NONE, t.settledAhead());
  }

  @Test
  @DisplayName("a new owner skips what the last commit said was settled, and carries it on")
  void inheritsSettledOffsets() {
    // The previous owner committed 100 with [101,150) and [151,200) settled: 100 and 150 were
    // still held by its fair queue when it died.
    OffsetLedger t = tracker(SettledOffsets.of(101, 150, 151, 200));
    assertTrue(t.read(100), "called again");
    assertFalse(t.read(101), "skipped");
    assertFalse(t.settle(101), "done already");
    assertEquals(OptionalLong.of(100), t.committable());
    assertEquals(SettledOffsets.of(101, 150, 151, 200), t.settledAhead(),
        "read only up to 101, the commit still says what the previous one did");
    t.settle(100);
    assertEquals(OptionalLong.of(150), t.committable(),
        "past the previous owner's run [101,150), though 102 to 149 are not read yet");
    assertEquals(SettledOffsets.of(151, 200), t.settledAhead());
    for (long o = 102; o < 150; o++) {
      assertFalse(t.read(o), o + " was settled before");
    }
    assertTrue(t.read(150));
    assertEquals(OptionalLong.of(150), t.committable());
    assertEquals(SettledOffsets.of(151, 200), t.settledAhead());
  }

  @Test
  @DisplayName("in any settlement order, settled-ahead is exactly the settled offsets above the commit")
  void settledAheadMatchesTheDefinition() {
    Random random = new Random(7);
    for (int round = 0; round < 200; round++) {
      OffsetLedger t = tracker(SettledOffsets.NONE);
      int n = 1 + random.nextInt(60);
      List<Long> offsets = new ArrayList<>();
      for (long o = 0; o < n; o++) {
        t.read(o);
        offsets.add(o);
      }
      Collections.shuffle(offsets, random);
      java.util.TreeSet<Long> unsettled = new java.util.TreeSet<>(offsets);
      for (long o : offsets) {
        t.settle(o);
        unsettled.remove(o);
        long committed = t.committable().getAsLong();
        SettledOffsets ahead = t.settledAhead();
        for (long x = committed; x < n + 2; x++) {
          assertEquals(x < n && !unsettled.contains(x), ahead.contains(x), "offset " + x);
        }
        assertEquals(SettledOffsetsCodec.decode(committed,
            SettledOffsetsCodec.encode(SettledOffsetsCodec.Format.ZLIB_V1, committed, ahead, 4096, Overflow.truncate())), ahead, "round trip");
      }
    }
  }
}
