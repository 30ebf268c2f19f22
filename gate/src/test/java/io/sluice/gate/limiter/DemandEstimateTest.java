package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A tenant's demand: the decayed count, and the rate measured since the tenant's first event. */
class DemandEstimateTest {
  private static final long MS = 1_000_000L;

  private static DemandEstimate every(long gapNanos, int events) {
    DemandEstimate d = new DemandEstimate();
    for (int i = 0; i < events; i++) {
      d.record(1, i * gapNanos);
    }
    return d;
  }

  @Test
  void aSteadyTenantSettlesAtItsRateEitherWay() {
    DemandEstimate d = every(10 * MS, 1_000); // 100/s for 10 s
    assertEquals(100, d.perSecond(), 1);
    assertEquals(100, d.rateSinceFirstSeen(), 1);
  }

  @Test
  void aTenantJustSeenReadsItsRateFromItsSecondEventOnWhileTheDecayedCountLags() {
    DemandEstimate d = every(10 * MS, 2); // two events 10 ms apart
    assertEquals(100, d.rateSinceFirstSeen(), 1);
    assertTrue(d.perSecond() < 2.1, "the decayed count has seen two events: " + d.perSecond());
    DemandEstimate ten = every(10 * MS, 10);
    assertEquals(100, ten.rateSinceFirstSeen(), 1);
    assertTrue(ten.perSecond() < 10, "still lagging: " + ten.perSecond());
  }

  @Test
  void oneEventIsNoRateYet() {
    DemandEstimate d = every(10 * MS, 1);
    assertEquals(1, d.rateSinceFirstSeen(), 1e-9, "the decayed count, as before");
    assertEquals(1, d.extraUnitsSinceFirstSeen(1, 64));
  }

  @Test
  void eventsAtTheSameInstantReadAsABoundedRate() {
    DemandEstimate d = every(0, 3);
    assertEquals(2 / DemandEstimate.SHORTEST_SPAN_SECONDS, d.rateSinceFirstSeen(), 1e-6);
    assertEquals(64, d.extraUnitsSinceFirstSeen(1, 64), "capped by the largest lease");
  }

  @Test
  void aQuietTenantIsReadNoBusierThanTheDecayedCountReadsIt() {
    // One event every 10 s: right after an event both read about 1/s (one event within tau), so
    // a renewal would take the same one extra unit that a blocking call takes.
    DemandEstimate d = every(10_000 * MS, 5);
    assertEquals(d.perSecond(), d.rateSinceFirstSeen(), 0.01);
    assertEquals(d.extraUnits(1, 64), d.extraUnitsSinceFirstSeen(1, 64));
  }

  @Test
  void extraUnitsCoverTheTargetAtTheRateUpToTheLargestLease() {
    DemandEstimate d = every(20 * MS, 3); // 50/s
    assertEquals(25, d.extraUnitsSinceFirstSeen(0.5, 64));
    assertEquals(50, d.extraUnitsSinceFirstSeen(1, 64));
    assertEquals(40, d.extraUnitsSinceFirstSeen(1, 40));
    assertEquals(2, d.extraUnits(1, 64), "the decayed count: about 3 less its decay");
  }
}
