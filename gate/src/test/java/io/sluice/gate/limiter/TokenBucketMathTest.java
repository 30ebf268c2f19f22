package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenBucketMathTest {

  @Test
  void shouldHoldEveryLeaseUntilReleasedOrEnded() {
    BucketSpec spec = new BucketSpec(10, 10, 0);
    TokenBucketMath.Step first = TokenBucketMath.acquire(null, spec, new AcquireRequest(4, 1, false, 1_000_000, null, null), 0);
    TokenBucketMath.Step second = TokenBucketMath.acquire(first.next(), spec, new AcquireRequest(3, 1, false, 2_000_000, null, null), 0);
    assertEquals(List.of(new BucketState.HeldLease(1, 1_000_000, 3, 3, 0, 9), new BucketState.HeldLease(2, 2_000_000, 2, 2, 0, 5)),
        second.next().leases());
    TokenBucketMath.Step later = TokenBucketMath.acquire(second.next(), spec, AcquireRequest.single(1), 1_500_000);
    assertEquals(List.of(new BucketState.HeldLease(2, 2_000_000, 2, 2, 0, 5)), later.next().leases(), "the first ended at 1 s");
    assertEquals(8, later.acquisition().levelBefore(), 1e-9, "capped at 10 - 2 once the first ended");
  }

  @Test
  void shouldIgnoreAReleaseThatDoesNotNameAHeldLeaseExactly() {
    BucketSpec spec = new BucketSpec(10, 10, 0);
    TokenBucketMath.Step leased = TokenBucketMath.acquire(null, spec, new AcquireRequest(5, 1, false, 1_000_000, null, null), 0);
    Acquisition a = leased.acquisition();
    for (LeaseRelease wrong : List.of(
        new LeaseRelease(a.leaseId(), a.leaseEndMicros() + 1, 4, 0),
        new LeaseRelease(a.leaseId(), a.leaseEndMicros(), 3, 0),
        new LeaseRelease(a.leaseId() + 1, a.leaseEndMicros(), 4, 0))) {
      TokenBucketMath.Step s = TokenBucketMath.acquire(leased.next(), spec, AcquireRequest.single(1).releasing(wrong), 0);
      assertEquals(5, s.acquisition().levelBefore(), 1e-9, "nothing given back for " + wrong);
      assertEquals(4, s.next().held(), "still held after " + wrong);
    }
  }

  @Test
  void shouldChargeAHolderThatCouldNeverFitTheReachOnceTheBucketIsFull() {
    // Capacity 2 at 1/s, no horizon: the reach is 1 s, so at most 3 units ever fit; cost 10
    // (a maxCost above the capacity) would otherwise be queued again and again.
    BucketSpec spec = new BucketSpec(2, 1, 0);
    TokenBucketMath.Step notFull = TokenBucketMath.acquire(
        new BucketState(1.5, 0, 0, 0, List.of()), spec, AcquireRequest.holding(10), 0);
    assertEquals(0, notFull.acquisition().granted(), "not yet full: queued again");
    TokenBucketMath.Step full = TokenBucketMath.acquire(notFull.next(), spec, AcquireRequest.holding(10), 1_000_000);
    assertEquals(10, full.acquisition().granted(), "full: charged");
    TokenBucketMath.Step fits = TokenBucketMath.acquire(
        new BucketState(0.5, 0, 0, 0, List.of()), spec, AcquireRequest.holding(1), 0);
    assertEquals(1, fits.acquisition().granted(), "a holder within the reach is charged as before");
  }

  @Test
  void shouldNeverRefillBackwardsInTime() {
    BucketSpec spec = new BucketSpec(10, 10, 0);
    TokenBucketMath.Step drained = TokenBucketMath.acquire(null, spec, new AcquireRequest(10, 10, false, 0, null, null), 5_000_000);
    TokenBucketMath.Step earlier = TokenBucketMath.acquire(drained.next(), spec, AcquireRequest.single(1), 4_000_000);
    assertEquals(0, earlier.acquisition().granted());
    assertEquals(5_000_000, earlier.next().updatedMicros(), "the stored time stays at the latest seen");
  }

  @Test
  void shouldNotBeChargedWhenTheEventIsQueued() {
    BucketSpec spec = new BucketSpec(2, 1, 0);
    TokenBucketMath.Step drained = TokenBucketMath.acquire(null, spec, new AcquireRequest(2, 2, false, 0, null, null), 0);
    TokenBucketMath.Step queued = TokenBucketMath.acquire(drained.next(), spec, AcquireRequest.single(1), 0);
    assertEquals(0, queued.acquisition().granted());
    assertEquals(0, queued.next().level(), 1e-12);
    assertEquals(1_000_000, queued.acquisition().ticketMicros(), "one unit at 1/s is a second away");
  }

  @Test
  void shouldKeepAdmittedCostWithinCapacityPlusRateTimesWindow() {
    // A tenant asking far above its rate, taking everything it may: in any window T the units
    // due in it never exceed capacity + refill * T (invariant 1 for the math alone).
    BucketSpec spec = new BucketSpec(5, 20, 500_000);
    BucketState state = null;
    java.util.List<Long> dueTimes = new java.util.ArrayList<>();
    for (long now = 0; now < 3_000_000; now += 5_000) {
      TokenBucketMath.Step s = TokenBucketMath.acquire(state, spec, new AcquireRequest(3, 1, false, 50_000, null, null), now);
      Acquisition a = s.acquisition();
      for (int j = 1; j <= a.granted(); j++) {
        dueTimes.add(a.nowMicros() + (long) Math.ceil(Math.max(0, (j - a.levelBefore()) * spec.microsPerUnit())));
      }
      state = s.next();
    }
    assertWithinCapacityPlusRateTimesWindow(dueTimes, spec);
  }
  @Test
  void shouldNotSellAgainTheDueTimesOfUnitsChargedAfterALeaseWhenItIsReleased() {
    // The chaos run's case: a lease of reservations, ticket holders charged after it, then the
    // lease released with units unused. Its unused units are a gap in the middle of the line;
    // given back, they would move the end of the line back and sell the holders' due times again.
    BucketSpec spec = new BucketSpec(4, 1.5, 30_000_000);
    List<Long> admitted = new ArrayList<>();
    TokenBucketMath.Step lease = TokenBucketMath.acquire(null, spec, AcquireRequest.leasing(23, 1, 60_000_000), 0);
    Acquisition granted = lease.acquisition();
    assertEquals(23, granted.granted(), "the need and a lease of 22 (3 held, 19 reserved)");
    int used = 16;
    for (int j = 1; j <= 1 + used; j++) {
      admitted.add(dueOf(j, granted, spec)); // the event's unit and the lease's first 16
    }
    TokenBucketMath.Step holders = TokenBucketMath.acquire(lease.next(), spec, AcquireRequest.holding(8), 100_000);
    for (int j = 1; j <= 8; j++) {
      admitted.add(dueOf(j, holders.acquisition(), spec));
    }
    LeaseRelease release = new LeaseRelease(granted.leaseId(), granted.leaseEndMicros(), 22, used);
    BucketState state = holders.next();
    for (long now = 200_000; now < 3_000_000; now += 100_000) {
      AcquireRequest next = AcquireRequest.single(1);
      TokenBucketMath.Step s = TokenBucketMath.acquire(state, spec, now == 200_000 ? next.releasing(release) : next, now);
      if (s.acquisition().granted() > 0) {
        admitted.add(dueOf(1, s.acquisition(), spec));
      }
      state = s.next();
    }
    assertWithinCapacityPlusRateTimesWindow(admitted, spec);
  }

  /** In any window [t_i, t_k] of the due times, at most capacity + refill * (t_k - t_i) units. */
  private static void assertWithinCapacityPlusRateTimesWindow(List<Long> dueTimes, BucketSpec spec) {
    List<Long> sorted = new ArrayList<>(dueTimes);
    java.util.Collections.sort(sorted);
    for (int i = 0; i < sorted.size(); i++) {
      for (int k = i; k < sorted.size(); k++) {
        double window = (sorted.get(k) - sorted.get(i)) / 1e6;
        assertTrue(k - i + 1 <= spec.capacity() + spec.refillPerSecond() * window + 1e-6,
            (k - i + 1) + " units due in " + window + " s, from " + sorted.get(i) / 1e6 + " s");
      }
    }
  }

  /** When unit {@code j} of an acquisition is due (in its charge's order). */
  private static long dueOf(int j, Acquisition a, BucketSpec spec) {
    return a.nowMicros() + (long) Math.ceil(Math.max(0, (j - a.levelBefore()) * spec.microsPerUnit()));
  }
}
