package io.sluice.dispatcher.dispatch.intake;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.schemas.event.WorkEvent;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ReadBudgetTest {
  /** Each entry below costs its value plus the overhead and its key "acme". */
  private static final long ENTRY_BYTES = ByteBudget.RECORD_OVERHEAD + 4 + 1000;

  private static DispatchEntry entry(String provider) {
    WorkEvent event = provider == null ? null
        : new WorkEvent("e1", "acme", provider, 1, null, null, null, null);
    return new DispatchEntry(new TopicPartition("t.ready", 0), 42, 1, "acme".getBytes(UTF_8),
        new byte[1000], new RecordHeaders(), event, "std", 0, null);
  }

  @Test
  @DisplayName("an entry is held against its provider's account until released; one of no provider against its own")
  void holdsPerProvider() {
    ReadBudget budget = new ReadBudget(Set.of("a", "b"), 100, 1_000_000);
    budget.hold(entry("a"));
    budget.hold(entry("a"));
    budget.hold(entry(null));
    budget.hold(entry("unknown"));
    assertEquals(2 * ENTRY_BYTES, budget.heldBytes("a"));
    assertEquals(0, budget.heldBytes("b"));
    assertEquals(2 * ENTRY_BYTES, budget.heldBytes(""), "no event, or a provider with no lane");
    budget.release(entry("a"));
    assertEquals(ENTRY_BYTES, budget.heldBytes("a"));
  }

  @Test
  @DisplayName("an entry fits while its provider's share has room; another provider is not held up")
  void fitsWithinTheShare() {
    ReadBudget budget = new ReadBudget(Set.of("a", "b"), 100, 4 * ENTRY_BYTES); // 2 entries each
    assertTrue(budget.fits(entry("a")));
    budget.hold(entry("a"));
    assertTrue(budget.fits(entry("a")));
    budget.hold(entry("a"));
    assertFalse(budget.fits(entry("a")), "a's share is full: overflow");
    assertTrue(budget.fits(entry("b")));
    budget.release(entry("a"));
    assertTrue(budget.fits(entry("a")), "room again once one settles");
  }

  @Test
  @DisplayName("each live lane toward a tenant's endpoint adds its records to the limit: a thousand busy endpoints do not pause reading at a provider's share")
  void endpointLanesRaiseTheRecordsLimit() {
    ReadBudget budget = new ReadBudget(Set.of("hooks"), 3_000, 1L << 30);
    int lanes = 1_000;
    int limit = 3_000 + ReadBudget.PER_ENDPOINT_LANE * lanes;
    assertTrue(budget.pausePartition(false, 3_001, 0, 1), "no endpoint lanes: the provider's limit");
    assertFalse(budget.pausePartition(false, 3_001, lanes, 1));
    assertFalse(budget.pausePartition(false, limit, lanes, 1));
    assertTrue(budget.pausePartition(false, limit + 1, lanes, 1));
    assertTrue(budget.pausePartition(true, limit / 2 + 1, lanes, 1), "paused: resumes only at half");
    assertFalse(budget.pausePartition(true, limit / 2, lanes, 1));
    assertTrue(budget.pausePartition(false, 3_001, -5, 1), "no negative lanes");
  }

  @Test
  @DisplayName("reading pauses past the records limit and resumes only at half of it")
  void pausesOnRecords() {
    ReadBudget budget = new ReadBudget(Set.of("a"), 100, 1_000_000);
    assertFalse(budget.pausePartition(false, 100, 0, 1));
    assertTrue(budget.pausePartition(false, 101, 0, 1));
    assertTrue(budget.pausePartition(true, 51, 0, 1), "paused: stays paused above half");
    assertFalse(budget.pausePartition(true, 50, 0, 1), "resumes at half");
  }

  @Test
  @DisplayName("each partition holds at most an equal share of the records limit, whatever the others hold: one whose lanes drain faster keeps reading")
  void eachPartitionHoldsItsShareOfTheRecordsLimit() {
    ReadBudget budget = new ReadBudget(Set.of("hooks"), 3_000, 1L << 30);
    int lanes = 1_000;
    int share = (3_000 + ReadBudget.PER_ENDPOINT_LANE * lanes) / 2;
    assertFalse(budget.pausePartition(false, share, lanes, 2));
    assertTrue(budget.pausePartition(false, share + 1, lanes, 2));
    // The other partition's 30,000 unsettled are not this one's: below half its share, it reads.
    assertFalse(budget.pausePartition(true, share / 2, lanes, 2), "drained to half its share: resumes");
    assertTrue(budget.pausePartition(true, share / 2 + 1, lanes, 2));
    assertFalse(budget.pausePartition(false, 1, lanes, 0), "no partition: no share to divide");
  }

  @Test
  @DisplayName("a lane that never drains holds its provider's share and no more: its later records overflow, the other provider's all fit, and reading never pauses for bytes")
  void aLaneThatNeverDrainsHoldsItsShareOnly() {
    // 10 entries' bytes, 5 per provider; a records limit the stuck lane alone cannot reach.
    ReadBudget budget = new ReadBudget(Set.of("stuck", "ok"), 100, 10 * ENTRY_BYTES);
    int held = 0;
    int overflowed = 0;
    boolean pausedForBytes = false;
    boolean pausedForRecords = false;
    for (int i = 0; i < 5_000; i++) {
      if (i % 2 == 0) {
        DispatchEntry e = entry("stuck");
        boolean fits = budget.fits(e);
        budget.hold(e); // judged, then held: queued for good, or its overflow being written
        if (fits) {
          held++; // queued in a lane that never calls: never released
        } else {
          overflowed++;
          budget.release(e); // the overflow's settlement written: let go
        }
      } else {
        DispatchEntry e = entry("ok");
        assertTrue(budget.fits(e), "the other provider is never held up, at arrival " + i);
        budget.hold(e);
        budget.release(e); // called and settled before the next arrival
      }
      pausedForBytes = budget.pauseForBytes(pausedForBytes);
      pausedForRecords = budget.pausePartition(pausedForRecords, held, 0, 1);
      assertTrue(budget.heldBytes("stuck") <= 5 * ENTRY_BYTES, "at most its share, at arrival " + i);
      assertFalse(pausedForBytes, "reading goes on, at arrival " + i);
      assertFalse(pausedForRecords, "its records stay within the partition's share, at arrival " + i);
    }
    assertEquals(5, held, "its share: 5 entries, queued for good");
    assertEquals(2_495, overflowed, "every later one went round the ladder");
  }

  @Test
  @DisplayName("reading pauses past the whole byte budget and resumes only at half of it")
  void pausesOnBytes() {
    ReadBudget budget = new ReadBudget(Set.of("a", "b"), 1_000, 4 * ENTRY_BYTES);
    for (int i = 0; i < 4; i++) {
      budget.hold(entry(i % 2 == 0 ? "a" : "b"));
    }
    assertFalse(budget.pauseForBytes(false), "exactly the budget");
    budget.hold(entry("a")); // an overflow being written is held too
    assertTrue(budget.pauseForBytes(false));
    budget.release(entry("a"));
    budget.release(entry("a"));
    assertTrue(budget.pauseForBytes(true), "3 of 4 entries' bytes: above half");
    budget.release(entry("b"));
    assertFalse(budget.pauseForBytes(true), "half: reading resumes");
  }
}
