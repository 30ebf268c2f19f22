package io.sluice.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The ledger of one delay partition: what its commit says went, and what a new owner skips. */
class PartitionLedgerTest {

  @Test
  @DisplayName("records released in offset order commit past them, with no metadata")
  void shouldCommitPastRecordsReleasedInOrder() {
    PartitionLedger ledger = new PartitionLedger(10, "");
    readAll(ledger, 10, 11, 12);
    ledger.release(10);
    ledger.release(11);
    assertEquals(12, ledger.commitOffset());
    assertEquals("", ledger.metadata());
    ledger.release(12);
    assertEquals(13, ledger.commitOffset());
    ledger.committed();
    assertEquals(0, ledger.size(), "nothing kept below the commit");
  }

  @Test
  @DisplayName("records released ahead of an earlier one commit below it, and the metadata lists them as runs")
  void shouldCommitBelowTheFirstRecordHeldAndListWhatWentAboveIt() {
    PartitionLedger ledger = new PartitionLedger(0, null);
    readAll(ledger, 0, 1, 2, 3, 5, 6, 9); // 4, 7 and 8: transaction markers, never read
    ledger.release(1);
    ledger.release(2);
    ledger.release(6);
    ledger.release(9);
    assertEquals(0, ledger.commitOffset());
    assertEquals(Map.of(1L, 2L, 6L, 9L), PartitionLedger.decode(0, ledger.metadata()),
        "6 and 9 are one run: no record was read between them");
    ledger.release(0);
    ledger.release(3);
    assertEquals(5, ledger.commitOffset(), "past 0 to 3 (and the marker at 4)");
    assertEquals(Map.of(6L, 9L), PartitionLedger.decode(5, ledger.metadata()));
  }

  @Test
  @DisplayName("a new owner skips exactly what the commit's metadata says went, and keeps saying it until it has read past")
  void shouldSkipWhatAnEarlierOwnerReleased() {
    PartitionLedger first = new PartitionLedger(0, null);
    readAll(first, 0, 1, 2, 3, 4, 5);
    first.release(1);
    first.release(2);
    first.release(4);
    first.committed();

    PartitionLedger second = new PartitionLedger(first.commitOffset(), first.metadata());
    assertTrue(second.read(0));
    assertFalse(second.read(1), "released before");
    assertEquals(0, second.commitOffset());
    assertEquals(Map.of(1L, 2L, 4L, 4L), PartitionLedger.decode(0, second.metadata()),
        "what went before, read or not yet read, is still listed");
    second.release(0);
    assertEquals(3, second.commitOffset(), "past 1 and 2, an earlier owner's run, though 2 is not read yet");
    assertEquals(Map.of(4L, 4L), PartitionLedger.decode(3, second.metadata()));
    assertFalse(second.read(2));
    assertTrue(second.read(3));
    assertFalse(second.read(4));
    assertTrue(second.read(5));
    second.release(3);
    second.release(5);
    assertEquals(6, second.commitOffset());
    assertEquals("", second.metadata());
  }

  @Test
  @DisplayName("a release undone (its transaction aborted) is as if it never happened")
  void shouldForgetAReleaseItsTransactionAborted() {
    PartitionLedger ledger = new PartitionLedger(0, null);
    readAll(ledger, 0, 1, 2);
    ledger.release(1);
    ledger.unrelease(1);
    assertEquals(0, ledger.commitOffset());
    assertEquals("", ledger.metadata());
    ledger.release(0);
    assertEquals(1, ledger.commitOffset());
  }

  @Test
  @DisplayName("refuses a release that would list more runs than fit the commit metadata, never one that moves the commit")
  void shouldBoundTheRunsItLists() {
    PartitionLedger ledger = new PartitionLedger(1L << 60, null);
    long base = 1L << 60;
    List<Long> offsets = new ArrayList<>();
    for (long i = 0; i <= 2 * PartitionLedger.MAX_RUNS + 2; i++) {
      offsets.add(base + i * 1_000_000_000L); // far apart: the longest numbers the metadata can hold
    }
    offsets.forEach(ledger::read);
    int released = 0;
    for (int i = 1; i < offsets.size(); i += 2) { // every other one: each its own run
      if (ledger.mayRelease(offsets.get(i))) {
        ledger.release(offsets.get(i));
        released++;
      }
    }
    assertEquals(PartitionLedger.MAX_RUNS, released);
    assertTrue(ledger.metadata().length() < 4096, "fits offset.metadata.max.bytes: " + ledger.metadata().length());
    assertTrue(ledger.mayRelease(offsets.get(0)), "the first record held may always go");
    assertTrue(ledger.mayRelease(offsets.get(2)), "one that joins two runs lists fewer");
  }

  @Test
  @DisplayName("metadata of another format lists nothing; a broken one of this format is refused")
  void shouldReadOnlyItsOwnMetadata() {
    assertEquals(Map.of(), PartitionLedger.decode(5, null));
    assertEquals(Map.of(), PartitionLedger.decode(5, ""));
    assertEquals(Map.of(), PartitionLedger.decode(5, "written by someone else"));
    assertThrows(IllegalArgumentException.class, () -> PartitionLedger.decode(5, PartitionLedger.FORMAT + "zz"));
    assertThrows(IllegalArgumentException.class, () -> PartitionLedger.decode(5, PartitionLedger.FORMAT + "0.1"),
        "a run at the commit itself: the commit is never released");
  }

  private static void readAll(PartitionLedger ledger, long... offsets) {
    for (long offset : offsets) {
      assertTrue(ledger.read(offset));
    }
  }
}
