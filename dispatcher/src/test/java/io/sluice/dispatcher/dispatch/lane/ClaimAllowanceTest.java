package io.sluice.dispatcher.dispatch.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The slots one instance may claim of a leak it shares: its share of the rate, never idling the leak. */
class ClaimAllowanceTest {
  private static final long MS = 1_000_000;
  private static final long LOOKAHEAD = 100 * MS;

  @Test
  void shouldAllowEverySlotWantedUntilAShareIsKnown() {
    ClaimAllowance allowance = new ClaimAllowance(0);
    assertFalse(allowance.capped());
    assertEquals(1_000, allowance.allows(1_000, 0));
    assertEquals(0, allowance.nanosUntilOne(0));
  }

  @Test
  void shouldStartACapFullAtOneLookaheadOfTheShareAndOneMore() {
    ClaimAllowance allowance = new ClaimAllowance(0);
    allowance.share(0.25, 400, LOOKAHEAD, 0);
    // 0.25 * 400 * 1.02 = 102/s; 100 ms of it is 10.2, and one more: 11 whole slots.
    assertEquals(11, allowance.allows(50, 0));
  }

  @Test
  void shouldRefillAtTheShareOfTheRateAndALittleMore() {
    ClaimAllowance allowance = new ClaimAllowance(0);
    allowance.share(0.25, 400, LOOKAHEAD, 0);
    allowance.took(11, 0);
    assertEquals(0, allowance.allows(50, 0));
    // 102 slots a second, and 0.2 of one left over from the 11.2 the cap held.
    long wait = allowance.nanosUntilOne(0);
    assertEquals(0.8e9 / 102, wait, 2);
    assertEquals(1, allowance.allows(50, wait));
    // Over a second, 102 slots come, never more than the cap holds at once.
    int claimed = 0;
    for (long t = wait; t <= 1_000 * MS + wait; t += MS) {
      int n = allowance.allows(50, t);
      allowance.took(n, t);
      claimed += n;
    }
    assertTrue(claimed >= 101 && claimed <= 103, claimed + " slots in a second at a cap of 102/s");
  }

  @Test
  void shouldFillUpWhenTheLeakHadItsNextSlotFree() {
    ClaimAllowance allowance = new ClaimAllowance(0);
    allowance.share(0.1, 100, LOOKAHEAD, 0);
    allowance.took(allowance.allows(50, 0), 0);
    assertEquals(0, allowance.allows(50, 0));
    allowance.leakIdle(0);
    assertEquals(2, allowance.allows(50, 0), "the others leave slots unused: take them");
  }

  @Test
  void shouldLiftTheCapForAShareOfOneOrWhenTheShareIsUnknown() {
    ClaimAllowance allowance = new ClaimAllowance(0);
    allowance.share(0.5, 100, LOOKAHEAD, 0);
    assertTrue(allowance.capped());
    allowance.share(1.0, 100, LOOKAHEAD, 0);
    assertFalse(allowance.capped());
    allowance.share(0.5, 100, LOOKAHEAD, 0);
    allowance.uncap();
    assertEquals(500, allowance.allows(500, 0));
  }

  @Test
  void shouldKeepWhatWasTakenWhenTheShareChanges() {
    ClaimAllowance allowance = new ClaimAllowance(0);
    allowance.share(0.5, 1_000, LOOKAHEAD, 0);
    allowance.took(allowance.allows(500, 0), 0);
    allowance.share(0.8, 1_000, LOOKAHEAD, 0);
    assertEquals(0, allowance.allows(500, 0), "a new share is not a new allowance");
  }
}
