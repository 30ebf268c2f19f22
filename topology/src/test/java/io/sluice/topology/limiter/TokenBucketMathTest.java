package io.sluice.topology.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenBucketMathTest {

  @Test
  void shouldFollowTheSpecificationTableExactly() {
    BucketState state = null;
    long now = 1_700_000_000_000_000L;
    long lost = 0;
    List<Acquisition> answers = new ArrayList<>();
    for (TokenBucketSpecification.Step step : TokenBucketSpecification.STEPS) {
      now += step.advanceMillis() * 1000;
      if (step.loss() != TokenBucketSpecification.Loss.NONE) {
        state = null;
        lost = step.loss() == TokenBucketSpecification.Loss.SLOT ? now : lost;
      }
      AcquireRequest request = step.releaseStep() < 0 ? step.request() : step.request(answers.get(step.releaseStep()), 0);
      TokenBucketMath.Step result = TokenBucketMath.acquire(state, TokenBucketSpecification.SPEC, request, now, lost);
      Acquisition a = result.acquisition();
      assertEquals(step.expectGranted(), a.granted(), step.why());
      assertEquals(step.expectLevel(), a.levelBefore(), 1e-9, step.why());
      assertEquals(step.expectTicketMillis() * 1000, a.ticketMicros(), 1, step.why());
      assertEquals(a.granted() > step.need(), a.leaseId() > 0, "a lease exactly when units beyond need: " + step.why());
      answers.add(a);
      state = result.next();
      assertTrue(state.level() + state.held() <= TokenBucketSpecification.SPEC.capacity() + 1e-9,
          "level + held never exceeds capacity: " + step.why());
    }
  }

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
    java.util.Collections.sort(dueTimes);
    for (int i = 0; i < dueTimes.size(); i++) {
      for (int k = i; k < dueTimes.size(); k++) {
        double window = (dueTimes.get(k) - dueTimes.get(i)) / 1e6;
        assertTrue(k - i + 1 <= spec.capacity() + spec.refillPerSecond() * window + 1e-6,
            "units " + i + ".." + k + " within " + window + " s");
      }
    }
  }
}
