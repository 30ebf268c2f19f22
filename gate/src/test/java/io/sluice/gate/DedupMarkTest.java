package io.sluice.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DedupMarkTest {
  private final DedupMark first = new DedupMark("sluice.inbound-3@120", 1_000, DedupMark.ACCEPTED);

  @Test
  void shouldReadBackWhatItWrites() {
    assertEquals("v1 sluice.inbound-3@120 1000 accepted", first.encoded());
    assertEquals(first, DedupMark.decoded(first.encoded()));
  }

  @Test
  void shouldNotMakeARecordReadAgainAfterACrashItsOwnDuplicate() {
    // The same record, read again from the committed offset by a revived task or a new owner.
    DedupMark again = new DedupMark("sluice.inbound-3@120", 5_000, DedupMark.ACCEPTED);
    assertFalse(again.duplicates(first));
  }

  @Test
  void shouldMakeAnotherRecordWithTheIdADuplicate() {
    assertTrue(new DedupMark("sluice.inbound-3@121", 2_000, DedupMark.ACCEPTED).duplicates(first));
  }

  @Test
  void shouldSuppressNothingWhenTheStoreDidNotAnswerOrHoldsAnotherVersionsMark() {
    DedupMark mine = new DedupMark("sluice.inbound-3@121", 2_000, DedupMark.ACCEPTED);
    assertFalse(mine.duplicates(DedupMark.decoded(null)));
    assertNull(DedupMark.decoded("v2 something else entirely"));
    assertNull(DedupMark.decoded("v1 sluice.inbound-3@1 notanumber accepted"));
  }
}
