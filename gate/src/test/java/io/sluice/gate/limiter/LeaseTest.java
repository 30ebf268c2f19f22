package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LeaseTest {
  // capacity 10, refill 10/s: one unit per 100 ms; horizon 1 s.
  private static final BucketSpec SPEC = new BucketSpec(10, 10, 1_000_000);
  private static final long T0 = 1_000_000_000L; // the bucket's clock at the grant, micros
  private static final long USE = 200_000;        // units may be handed out for 200 ms
  private static final long END = T0 + 300_000;   // the bucket holds the lease for 300 ms
  private static final long SENT = 0;
  private static final long RECEIVED = 200_000; // a 200 µs round trip, in local nanos

  private static long localNanosAfter(long micros) {
    return RECEIVED + micros * 1000;
  }

  /** {@code granted} units for an asker of {@code need} when the level was {@code level}. */
  private static Lease lease(int granted, int need, double level) {
    Acquisition a = new Acquisition(granted, level, T0, 0, granted > need ? 7 : 0, granted > need ? END : 0, 0);
    Lease lease = new Lease(SPEC, a, need, USE, SENT, RECEIVED);
    return lease;
  }

  @Test
  void shouldServeTheAskingEventAtTheGrant() {
    Lease lease = lease(4, 1, 10);
    Lease.Slot slot = lease.takeAtGrant();
    assertTrue(slot.isImmediate());
    assertEquals(T0, slot.admittedMicros());
    assertEquals(3, lease.remaining());
  }

  @Test
  void shouldHandOutUnitsTakenFromAFullBucketUntilItsUseEnds() {
    // The bucket holds the lease against its cap, so a full bucket's units stay good to the end
    // of use (no saved-token limit as long as the bucket knows).
    Lease lease = lease(4, 1, 10);
    lease.takeAtGrant();
    Lease.Slot late = lease.take(1, localNanosAfter(150_000));
    assertTrue(late.isImmediate());
    assertEquals(T0 + 150_000, late.admittedMicros());
    assertNull(lease.take(1, localNanosAfter(200_000)), "at the end of use: refused");
    assertEquals(2, lease.remaining(), "a refused take uses nothing");
  }

  @Test
  void shouldHandOutReservedUnitsAtTheRefillBesideAnOldLine() {
    // Beside an old line at 6/s for 100 ms more (a quota raised from 6/s to 10/s), the bucket
    // refills at 4/s until the line ends, then at 10/s: from level 0, unit 1 is due at +100 ms
    // (0.4 by the line's end, then 0.6 at 10/s: +160 ms), unit 2 at +260 ms.
    Acquisition a = new Acquisition(3, 0, T0, 0, 7, END, 0, 6, T0 + 100_000);
    Lease lease = new Lease(SPEC, a, 1, USE, SENT, RECEIVED);
    assertEquals(T0 + 160_000, lease.takeAtGrant().dueMicros(), "at 10/s from the grant it would be +100 ms");
    assertEquals(T0 + 260_000, lease.take(1, localNanosAfter(10_000)).dueMicros());
  }

  @Test
  void shouldGiveTheAskersOwnDebtUnitsTheirDueTime() {
    // Level 0.5, an event of cost 3 and no lease: its units are due at +50, +150 and +250 ms.
    Lease.Slot slot = lease(3, 3, 0.5).takeAtGrant();
    assertFalse(slot.isImmediate());
    assertEquals(T0 + 250_000, slot.dueMicros(), "an event goes when its last unit is due");
  }

  @Test
  void shouldHandOutReservedUnitsAsReservationsAtTheirDueTimes() {
    // Level 1.5, lease of 4: unit 1 now, unit 2 at +50 ms, unit 3 at +150 ms, unit 4 at +250 ms.
    Lease lease = lease(4, 1, 1.5);
    assertTrue(lease.takeAtGrant().isImmediate());
    Lease.Slot cost2 = lease.take(2, localNanosAfter(10_000));
    assertFalse(cost2.isImmediate());
    assertEquals(T0 + 150_000, cost2.dueMicros(), "an event of cost 2 goes when its last unit is due");
    Lease.Slot unit4 = lease.take(1, localNanosAfter(100_000));
    assertEquals(T0 + 250_000, unit4.admittedMicros(), "a reservation may fall due after the end of use");
    assertEquals(0, lease.remaining());
  }

  @Test
  void shouldNeverSpendAReservedUnitAfterItsDueTime() {
    // Level 1.5, lease of 4: unit 2 is due at +50 ms. At +60 ms (bucket clock, upper bound) it may
    // have fallen due: spending it now would be spending refill the bucket never stored.
    Lease lease = lease(4, 1, 1.5);
    lease.takeAtGrant();
    assertNull(lease.take(1, localNanosAfter(60_000)), "unit 2 was due at +50 ms");
    assertEquals(3, lease.remaining(), "a refused take uses nothing");
    assertEquals(new LeaseRelease(7, END, 3, 0), lease.release(localNanosAfter(60_000)),
        "released with none used: the bucket gives back those still ahead of their due time");
    // Nor beside one still ahead: an event of cost 2 would take unit 2 (fallen due) with unit 3
    // (due at +150 ms). The last unit alone was judged before, and unit 2 spent after its due
    // time (QuotaBoundProperties, seed 216606: 3 units in 38.5 ms from a bucket of 2 at 18.77/s).
    assertNull(lease.take(2, localNanosAfter(60_000)), "unit 2 was due at +50 ms");
    // Units the bucket had stay good to the end of use.
    Lease held = lease(4, 1, 10);
    held.takeAtGrant();
    assertTrue(held.take(3, localNanosAfter(190_000)).isImmediate());
  }

  @Test
  void shouldRefuseAnEventLargerThanWhatIsLeft() {
    Lease lease = lease(3, 1, 10);
    lease.takeAtGrant();
    assertNull(lease.take(3, localNanosAfter(1)));
    assertEquals(2, lease.remaining(), "a refused take uses nothing");
  }

  @Test
  void shouldJudgeTheEndOfUseByTheLatestTheBucketClockCouldRead() {
    // Use is judged against grant + time since the request was SENT (an upper bound); stamps use
    // grant + time since the answer (a lower bound). Here the round trip took 50 ms.
    Lease lease = new Lease(SPEC, new Acquisition(3, 9, T0, 0, 7, END, 0), 1, USE, 0, 50_000_000);
    lease.takeAtGrant();
    Lease.Slot ok = lease.take(1, 90_000_000);
    assertEquals(T0 + 40_000, ok.admittedMicros(), "stamped by the lower bound: 40 ms after the answer");
    // 200 ms after sending (150 ms after the answer) the bucket's clock may read T0 + 200 ms.
    assertNull(lease.take(1, 200_000_000), "at the end of use by the upper bound: refused");
  }

  @Test
  void shouldReleaseWhatIsLeftBeyondTheAskersNeed() {
    Lease lease = lease(6, 2, 10);
    lease.takeAtGrant();
    lease.take(1, localNanosAfter(1_000));
    assertEquals(new LeaseRelease(7, END, 4, 1), lease.release(localNanosAfter(2_000)),
        "4 units beyond the asker's 2, of which 1 was handed out");
  }

  @Test
  void shouldNotNameALeaseTheBucketMayHaveLetGo() {
    Lease lease = lease(6, 2, 10);
    lease.takeAtGrant();
    assertEquals(7, lease.release(localNanosAfter(299_000)).id());
    assertNull(lease.release(localNanosAfter(300_000)), "the bucket's clock may have reached the lease's end");
    assertNull(lease(2, 2, 10).release(localNanosAfter(1)), "no units beyond need: nothing to release");
  }

  @Test
  void shouldRefuseAUseThatWouldOutliveTheHold() {
    Acquisition a = new Acquisition(4, 10, T0, 0, 7, T0 + USE, 0);
    assertThrows(IllegalArgumentException.class, () -> new Lease(SPEC, a, 1, USE, SENT, RECEIVED));
  }
}
