package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.FakeClock;
import org.junit.jupiter.api.Test;

/** When a lease is renewed ahead: a lease target of 1 s, so the lookahead is 500 ms. */
class RenewalPolicyTest {
  private final RenewalPolicy policy = RenewalPolicy.forLeaseTarget(1_000_000);

  @Test
  void shouldRenewASteadyTenantsLeaseOnceHalfOfItIsSpent() {
    // 20 units/s with a lease of 20 units: dry in 1 s at first, in 500 ms once 10 are left.
    assertFalse(policy.shouldRenew(20, 2_000_000, 20));
    assertFalse(policy.shouldRenew(11, 2_000_000, 20));
    assertTrue(policy.shouldRenew(10, 2_000_000, 20));
    assertTrue(policy.shouldRenew(0, 2_000_000, 20));
  }

  @Test
  void shouldRenewWhenTheTimeOfUseClosesBeforeTheUnitsRunOut() {
    // 64 units at 20/s would last 3.2 s, but the lease may be used for 400 ms more only.
    assertFalse(policy.shouldRenew(64, 600_000, 20));
    assertTrue(policy.shouldRenew(64, 400_000, 20));
  }

  @Test
  void shouldNotRenewForATenantWhoseDemandIsNotKnownOrGone() {
    assertFalse(policy.shouldRenew(0, 2_000_000, 0));
  }

  @Test
  void shouldLeaveAQuietTenantsOneUnitLeaseToCloseOnItsOwn() {
    // One event every 10 s: the decayed demand right after an event is about 1/s, so one unit
    // left lasts 1 s, beyond the lookahead; by the next event the lease has closed.
    FakeClock clock = FakeClock.atMillis(0);
    DemandEstimate demand = new DemandEstimate();
    for (int i = 0; i < 5; i++) {
      demand.record(1, clock.nanos());
      assertFalse(policy.shouldRenew(1, 2_000_000, demand.perSecond()), "event " + i);
      clock.advanceMillis(10_000);
    }
  }

  @Test
  void shouldRenewABusyTenantBeforeItsLeaseRunsDryOnTheDemandItShows() {
    // 50 events/s, 20 ms apart: a lease of 50 units is renewed at about its 25th unit.
    FakeClock clock = FakeClock.atMillis(0);
    DemandEstimate demand = new DemandEstimate();
    for (int i = 0; i < 200; i++) {
      demand.record(1, clock.nanos());
      clock.advanceMillis(20);
    }
    int firstRenewal = -1;
    for (int used = 1; used <= 50 && firstRenewal < 0; used++) {
      if (policy.shouldRenew(50 - used, 2_000_000, demand.perSecond())) {
        firstRenewal = used;
      }
    }
    assertTrue(firstRenewal >= 24 && firstRenewal <= 26, "renewed at unit " + firstRenewal);
  }

  @Test
  void shouldRefuseALookaheadOfNothing() {
    assertThrows(IllegalArgumentException.class, () -> new RenewalPolicy(0));
  }
}
