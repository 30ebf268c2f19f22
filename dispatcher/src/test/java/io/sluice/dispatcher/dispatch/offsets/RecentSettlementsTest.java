package io.sluice.dispatcher.dispatch.offsets;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A partition's reader knows a second copy of a settlement it saw lately, and forgets in order. */
class RecentSettlementsTest {
  @Test
  void shouldKnowASecondCopyOfASettlementSeenBefore() {
    RecentSettlements seen = new RecentSettlements(3);
    assertTrue(seen.firstSight("ready-0@7"));
    assertTrue(seen.firstSight("ready-0@8"));
    assertFalse(seen.firstSight("ready-0@7"), "the second copy");
    assertFalse(seen.firstSight("ready-0@7"), "and a third");
  }

  @Test
  void shouldForgetTheOldestFirstPastItsCapacity() {
    RecentSettlements seen = new RecentSettlements(2);
    seen.firstSight("a");
    seen.firstSight("b");
    seen.firstSight("c"); // "a" forgotten
    assertFalse(seen.firstSight("b"));
    assertFalse(seen.firstSight("c"));
    assertTrue(seen.firstSight("a"), "farther back than the capacity: taken again");
  }

  @Test
  void shouldRefuseAnEmptyMemory() {
    assertThrows(IllegalArgumentException.class, () -> new RecentSettlements(0));
  }
}
