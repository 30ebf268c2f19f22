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
    assertEquals(T0, lease.validUntilMicros(), "a lease from a full bucket is good for its asker only");
    assertNull(lease.take(1, localNanosAfter(1)), "the next unit would be a saved token: refused");
  }

  @Test
  void shouldHandOutHeldUnitsUntilTheBucketCouldHaveRefilledToCapacity() {
    // Level 4 before a lease of 4: valid for (10 - 4) / 10 s = 600 ms.
    Lease lease = new Lease(SPEC, new Acquisition(4, 4, T0, 0), SENT, RECEIVED);
    lease.takeAtGrant(1);
    assertEquals(T0 + 600_000, lease.validUntilMicros());
    Lease.Slot second = lease.take(1, localNanosAfter(100_000));
    assertTrue(second.isImmediate());
    assertEquals(T0 + 100_000, second.admittedMicros());
    assertNull(lease.take(1, localNanosAfter(600_001)), "past validity the rest is dropped");
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
    Lease lease = new Lease(SPEC, new Acquisition(2, 9, T0, 0), 0, 50_000_000);
    lease.takeAtGrant(1);
    assertEquals(T0 + 100_000, lease.validUntilMicros());
    // 120 ms after sending (70 ms after the answer): the bucket's clock may read T0 + 120 ms.
    assertNull(lease.take(1, 120_000_000), "past validity by the upper bound: refused");
    Lease.Slot ok = lease.take(1, 90_000_000);
    assertTrue(ok.isImmediate());
    assertEquals(T0 + 40_000, ok.admittedMicros(), "stamped by the lower bound: 40 ms after the answer");
  }
}
