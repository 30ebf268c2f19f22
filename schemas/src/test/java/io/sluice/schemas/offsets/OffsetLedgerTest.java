package io.sluice.schemas.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The ledger as the relay uses it (refuse on overflow, the runs format): what its commit says went,
 * and what a new owner skips. The dispatcher's use: {@link OffsetLedgerSettleTest}.
 */
class OffsetLedgerTest {
  private static final int MAX_RUNS = 100;
  private static final SettledOffsetsCodec.Format RUNS = SettledOffsetsCodec.Format.RUNS_V1;

  @Test
  @DisplayName("records released in offset order commit past them, with no metadata")
  void shouldCommitPastRecordsReleasedInOrder() {
    OffsetLedger ledger = ledger(10, "");
    readAll(ledger, 10, 11, 12);
    ledger.settle(10);
    ledger.settle(11);
    assertEquals(12, ledger.committable().getAsLong());
    assertEquals("", ledger.metadata(RUNS, 4096));
    ledger.settle(12);
    assertEquals(13, ledger.committable().getAsLong());
    ledger.forgetCommitted();
    assertEquals(0, ledger.size(), "nothing kept below the commit");
  }

  @Test
  @DisplayName("records released ahead of an earlier one commit below it, and the metadata lists them as runs")
  void shouldCommitBelowTheFirstRecordHeldAndListWhatWentAboveIt() {
    OffsetLedger ledger = ledger(0, null);
    readAll(ledger, 0, 1, 2, 3, 5, 6, 9); // 4, 7 and 8: transaction markers, never read
    ledger.settle(1);
    ledger.settle(2);
    ledger.settle(6);
    ledger.settle(9);
    assertEquals(0, ledger.committable().getAsLong());
    assertEquals(SettledOffsets.of(1, 3, 6, 10), SettledOffsetsCodec.decode(0, ledger.metadata(RUNS, 4096)),
        "6 and 9 are one run: no record was read between them");
    ledger.settle(0);
    ledger.settle(3);
    assertEquals(5, ledger.committable().getAsLong(), "past 0 to 3 (and the marker at 4)");
    assertEquals(SettledOffsets.of(6, 10), SettledOffsetsCodec.decode(5, ledger.metadata(RUNS, 4096)));
  }

  @Test
  @DisplayName("a new owner skips exactly what the commit's metadata says went, and keeps saying it until it has read past")
  void shouldSkipWhatAnEarlierOwnerReleased() {
    OffsetLedger first = ledger(0, null);
    readAll(first, 0, 1, 2, 3, 4, 5);
    first.settle(1);
    first.settle(2);
    first.settle(4);
    first.forgetCommitted();

    OffsetLedger second = ledger(first.committable().getAsLong(), first.metadata(RUNS, 4096));
    assertTrue(second.read(0));
    assertFalse(second.read(1), "released before");
    assertEquals(0, second.committable().getAsLong());
    assertEquals(SettledOffsets.of(1, 3, 4, 5), SettledOffsetsCodec.decode(0, second.metadata(RUNS, 4096)),
        "what went before, read or not yet read, is still listed");
    second.settle(0);
    assertEquals(3, second.committable().getAsLong(), "past 1 and 2, an earlier owner's run, though 2 is not read yet");
    assertEquals(SettledOffsets.of(4, 5), SettledOffsetsCodec.decode(3, second.metadata(RUNS, 4096)));
    assertFalse(second.read(2));
    assertTrue(second.read(3));
    assertFalse(second.read(4));
    assertTrue(second.read(5));
    second.settle(3);
    second.settle(5);
    assertEquals(6, second.committable().getAsLong());
    assertEquals("", second.metadata(RUNS, 4096));
  }

  @Test
  @DisplayName("a release undone (its transaction aborted) is as if it never happened")
  void shouldForgetAReleaseItsTransactionAborted() {
    OffsetLedger ledger = ledger(0, null);
    readAll(ledger, 0, 1, 2);
    ledger.settle(1);
    ledger.unsettle(1);
    assertEquals(0, ledger.committable().getAsLong());
    assertEquals("", ledger.metadata(RUNS, 4096));
    ledger.settle(0);
    assertEquals(1, ledger.committable().getAsLong());
  }

  @Test
  @DisplayName("refuses a release that would list more runs than fit the commit metadata, never one that moves the commit")
  void shouldBoundTheRunsItLists() {
    OffsetLedger ledger = ledger(1L << 60, null);
    long base = 1L << 60;
    List<Long> offsets = new ArrayList<>();
    for (long i = 0; i <= 2 * MAX_RUNS + 2; i++) {
      offsets.add(base + i * 1_000_000_000L); // far apart: the longest numbers the metadata can hold
    }
    offsets.forEach(ledger::read);
    int released = 0;
    for (int i = 1; i < offsets.size(); i += 2) { // every other one: each its own run
      if (ledger.maySettle(offsets.get(i))) {
        ledger.settle(offsets.get(i));
        released++;
      }
    }
    assertEquals(MAX_RUNS, released);
    assertTrue(ledger.metadata(RUNS, 4096).length() < 4096, "fits offset.metadata.max.bytes: " + ledger.metadata(RUNS, 4096).length());
    assertTrue(ledger.maySettle(offsets.get(0)), "the first record held may always go");
    assertTrue(ledger.maySettle(offsets.get(2)), "one that joins two runs lists fewer");
  }

  @Test
  @DisplayName("metadata of a format it does not know lists nothing; a broken one of a format it knows is refused")
  void shouldReadOnlyItsOwnMetadata() {
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decode(5, null));
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decode(5, ""));
    assertEquals(SettledOffsets.NONE, SettledOffsetsCodec.decode(5, "written by someone else"));
    assertThrows(IllegalArgumentException.class, () -> SettledOffsetsCodec.decode(5, RUNS.prefix() + "zz"));
    assertThrows(IllegalArgumentException.class, () -> SettledOffsetsCodec.decode(5, RUNS.prefix() + "0.1"),
        "a run at the commit itself: the commit is never released");
  }

  private static OffsetLedger ledger(long committed, String metadata) {
    return new OffsetLedger(committed, SettledOffsetsCodec.decode(committed, metadata), Overflow.refuseBeyond(MAX_RUNS));
  }

  private static void readAll(OffsetLedger ledger, long... offsets) {
    for (long offset : offsets) {
      assertTrue(ledger.read(offset));
    }
  }
}
