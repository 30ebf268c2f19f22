package io.sluice.topology.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LeaseTest {
  // capacity 10, refill 10/s: one unit per 100 ms; horizon 1 s.
  private static final BucketSpec SPEC = new BucketSpec(10, 10, 1_000_000);
  private static final long T0 = 1_000_000_000L; // the bucket's clock at the grant, micros
  private static final long SENT = 0;
  private static final long RECEIVED = 200_000; // a 200 µs round trip, in local nanos

  private static long localNanosAfter(long micros) {
    return RECEIVED + micros * 1000;
  }

  @Test
  void shouldServeTheAskingEventAtTheGrantEvenFromAFullBucket() {
    Lease lease = new Lease(SPEC, new Acquisition(3, 10, T0, 0), SENT, RECEIVED);
    Lease.Slot slot = lease.takeAtGrant(1);
    assertTrue(slot.isImmediate());
    assertEquals(T0, slot.admittedMicros());
    assertEquals(T0 + 100_000, lease.validUntilMicros(),
        "from a full bucket, good for one unit of refill after its asker");
    assertNull(lease.take(1, localNanosAfter(100_001)), "later, the next unit would be a saved token: refused");
    assertNull(lease.take(1, localNanosAfter(1)), "and once refused, the lease is dropped for good");
  }

  @Test
  void shouldHandOutHeldUnitsUntilTheBucketCouldHaveRefilledToCapacity() {
    // Level 4 before a lease of 4, one unit used by its asker: valid for (10 - 4 + 1) / 10 s.
    Lease lease = new Lease(SPEC, new Acquisition(4, 4, T0, 0), SENT, RECEIVED);
    lease.takeAtGrant(1);
    assertEquals(T0 + 700_000, lease.validUntilMicros());
    Lease.Slot second = lease.take(1, localNanosAfter(100_000));
    assertTrue(second.isImmediate());
    assertEquals(T0 + 100_000, second.admittedMicros());
    assertEquals(T0 + 800_000, lease.validUntilMicros(), "each unit used makes room for one more unit of refill");
    assertNull(lease.take(1, localNanosAfter(800_001)), "past validity the rest is dropped");
  }

  @Test
  void shouldGiveDebtUnitsTheirDueTimes() {
    // Level 1.5, lease of 4: unit 1 now, unit 2 at +50 ms, unit 3 at +150 ms, unit 4 at +250 ms.
    Lease lease = new Lease(SPEC, new Acquisition(4, 1.5, T0, 0), SENT, RECEIVED);
    assertTrue(lease.takeAtGrant(1).isImmediate());
    Lease.Slot cost2 = lease.take(2, localNanosAfter(10_000));
    assertFalse(cost2.isImmediate());
    assertEquals(T0 + 150_000, cost2.dueMicros(), "an event of cost 2 goes when its last unit is due");
    Lease.Slot late = lease.take(1, localNanosAfter(300_000));
    assertTrue(late.isImmediate(), "a unit handed out after its due time goes at once");
    assertEquals(0, lease.remaining());
    assertNull(lease.take(1, localNanosAfter(300_001)));
  }

  @Test
  void shouldRefuseAnEventLargerThanWhatIsLeft() {
    Lease lease = new Lease(SPEC, new Acquisition(3, 0, T0, 0), SENT, RECEIVED);
    lease.takeAtGrant(1);
    assertNull(lease.take(3, localNanosAfter(1)));
    assertEquals(2, lease.remaining(), "a refused take uses nothing");
  }

  @Test
  void shouldJudgeValidityByTheLatestTheBucketClockCouldRead() {
    // Validity is checked against grant + time since the request was SENT (an upper bound).
    Lease lease = new Lease(SPEC, new Acquisition(3, 9, T0, 0), 0, 50_000_000);
    lease.takeAtGrant(1);
    assertEquals(T0 + 200_000, lease.validUntilMicros());
    Lease.Slot ok = lease.take(1, 90_000_000);
    assertTrue(ok.isImmediate());
    assertEquals(T0 + 40_000, ok.admittedMicros(), "stamped by the lower bound: 40 ms after the answer");
    // Now valid until T0 + 300 ms. 320 ms after sending (270 ms after the answer) the bucket's
    // clock may read T0 + 320 ms: refused, although the lower bound says T0 + 270 ms.
    assertNull(lease.take(1, 320_000_000), "past validity by the upper bound: refused");
  }
}
