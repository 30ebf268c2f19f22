package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.redis.RedisCircuit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The gate's limiter over the bucket math on a clock the test drives (fast, deterministic); the
 * same paths against a real Redis and broker are in GateIT.
 */
class GateLimiterTest {
  private final AtomicLong clockMicros = new AtomicLong(1_700_000_000_000_000L);
  private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(clockMicros::get);

  private GateLimiter limiter(Duration leaseTarget, int maxLease) {
    return limiter(store, leaseTarget, maxLease);
  }

  private GateLimiter limiter(TokenBucketStore store, Duration leaseTarget, int maxLease) {
    return new GateLimiter(store, new RedisCircuit(100, 1_000, s -> {}),
        () -> clockMicros.get() * 1000,
        Duration.ofSeconds(1), leaseTarget, maxLease, (k, n) -> {});
  }

  private record Admission(long atMillis, int cost) {}

  private static Admission admission(LimiterDecision d, int cost) {
    if (d instanceof LimiterDecision.Admit a) {
      return new Admission(a.atMillis(), cost);
    }
    if (d instanceof LimiterDecision.Reserved r) {
      return new Admission(r.notBeforeMillis(), cost);
    }
    return null;
  }

  /**
   * Invariant 1 on admission stamps: in every window [t_i, t_k], the units admitted are at most
   * capacity + refill * (t_k - t_i). Stamps are whole milliseconds (an admission may read up to
   * 1 ms early): 0.1 unit of slack.
   */
  private static void assertWithinBucket(List<Admission> admissions, BucketSpec spec, String context) {
    List<Admission> sorted = new ArrayList<>(admissions);
    sorted.sort(Comparator.comparingLong(Admission::atMillis));
    for (int i = 0; i < sorted.size(); i++) {
      int sum = 0;
      for (int k = i; k < sorted.size(); k++) {
        sum += sorted.get(k).cost();
        double windowSeconds = (sorted.get(k).atMillis() - sorted.get(i).atMillis()) / 1000.0;
        double bound = spec.capacity() + spec.refillPerSecond() * windowSeconds + 0.1;
        assertTrue(sum <= bound, context + ": " + sum + " units admitted within " + windowSeconds + " s, bound " + bound);
      }
    }
  }

  @Test
  @org.junit.jupiter.api.DisplayName("after a change of the tenant's quota the next event is decided "
      + "by the store, which applies the change, not by a lease sold under the old quota")
  void shouldAskTheStoreAtTheFirstEventAfterAChangeOfQuota() {
    GateLimiter gate = limiter(Duration.ofSeconds(2), 64);
    BucketKey key = new BucketKey("api", "grow");
    BucketSpec before = new BucketSpec(100, 100, 1_000_000);
    boolean leaseServing = false;
    for (int i = 0; i < 200 && !leaseServing; i++) {
      clockMicros.addAndGet(20_000);
      int calls = store.calls();
      assertInstanceOf(LimiterDecision.Admit.class, gate.decide(key, before, 1, false));
      leaseServing = i > 10 && store.calls() == calls;
    }
    assertTrue(leaseServing, "a lease decides the tenant's events in process");

    int calls = store.calls();
    clockMicros.addAndGet(20_000);
    gate.decide(key, new BucketSpec(100, 400, 1_000_000), 1, false);

    assertEquals(calls + 1, store.calls(), "the first event under the raised quota goes to the store");
  }

  @Test
  @org.junit.jupiter.api.DisplayName("a bucket that owes Redis outlives the LRU bound: its debt is "
      + "charged when Redis answers; past twice the bound debts are dropped and counted")
  void shouldKeepWhatABucketOwesPastTheLruBound() {
    GateLimiter gate = limiter(Duration.ZERO, 0);
    BucketKey owing = new BucketKey("api", "owing");
    BucketSpec spec = new BucketSpec(100, 100, 1_000_000);
    gate.owe(owing, 3);
    for (int i = 0; i < GateLimiter.MAX_REMEMBERED + 10; i++) {
      gate.owe(new BucketKey("api", "t" + i), 1);
    }
    assertEquals(0, gate.owedDropped(), "under twice the bound, nothing owed is forgotten");
    int before = store.calls();
    gate.decide(owing, spec, 1, false);
    assertEquals(before + 2, store.calls(), "its 3 units charged first, then the event");
    for (int i = 0; i < GateLimiter.MAX_REMEMBERED; i++) {
      gate.owe(new BucketKey("api", "u" + i), 1);
    }
    assertTrue(gate.owedDropped() > 0, "past twice the bound the oldest debts are counted");
  }

  @Test
  void shouldCostOneRedisCallPerLeaseForATenantWellInsideItsQuota() {
    // 50 events/s against a bucket of 100 at 100/s: the bucket stays nearly full all along.
    GateLimiter gate = limiter(Duration.ofMillis(100), 64);
    BucketKey key = new BucketKey("api", "calm");
    BucketSpec spec = new BucketSpec(100, 100, 1_000_000);
    int events = 0;
    for (int i = 0; i < 500; i++) {
      clockMicros.addAndGet(20_000);
      LimiterDecision d = gate.decide(key, spec, 1, false);
      assertTrue(d instanceof LimiterDecision.Admit, "inside its quota every event goes at once: " + d);
      events++;
    }
    // Demand 50/s and a 100 ms target make leases of 5 extra units: one call per 6 events.
    assertTrue(store.calls() <= events / 4, store.calls() + " calls for " + events + " events");
  }

  @Test
  void shouldNeverAdmitMoreThanCapacityPlusRateTimesWindowWhateverTheLeasesDo() {
    // Three holders of leases on one bucket (three stream tasks, as after a rebalance), each
    // alternating calm stretches, where leases are taken from a nearly full bucket and left
    // partly unused, with bursts far above the rate. Admission times, from every holder, are held
    // to capacity + refill * T in every window.
    BucketSpec spec = new BucketSpec(20, 100, 500_000);
    BucketKey key = new BucketKey("api", "bursty");
    List<GateLimiter> holders = List.of(
        limiter(Duration.ofMillis(100), 16), limiter(Duration.ofMillis(100), 16), limiter(Duration.ofMillis(100), 16));
    Random random = new Random(42);
    List<Admission> admitted = new ArrayList<>();
    int decided = 0;
    for (int round = 0; round < 300; round++) {
      boolean burst = random.nextInt(4) == 0;
      int events = burst ? 20 + random.nextInt(40) : 1 + random.nextInt(3);
      for (int e = 0; e < events; e++) {
        clockMicros.addAndGet(burst ? random.nextInt(500) : 5_000 + random.nextInt(40_000));
        int cost = 1 + (random.nextInt(5) == 0 ? random.nextInt(3) : 0);
        LimiterDecision d = holders.get(random.nextInt(3)).decide(key, spec, cost, false);
        decided++;
        Admission a = admission(d, cost);
        if (a != null) {
          admitted.add(a);
        }
      }
    }
    assertWithinBucket(admitted, spec, "three holders");
    assertTrue(admitted.size() > 1000, "enough admissions to mean something: " + admitted.size());
    assertTrue(decided - store.calls() > 300,
        "hundreds of events were served from leases: " + store.calls() + " calls for " + decided + " events");
  }

  @Test
  void shouldDecideATenantFarOverItsRateAsOneCallPerEventWouldWithAFractionOfTheCalls() {
    // 100 events/s against 10/s with a burst of 5 and a 1 s horizon, for 3 s: after the burst
    // and the horizon fill, most events queue. Leases and places in line must give every event
    // the same decision and time as a Redis call per event, from far fewer calls.
    InMemoryTokenBucketStore perEventStore = new InMemoryTokenBucketStore(clockMicros::get);
    GateLimiter perEvent = limiter(perEventStore, Duration.ofSeconds(1), 0);
    GateLimiter cached = limiter(Duration.ofSeconds(1), 64);
    BucketKey key = new BucketKey("api", "loud");
    BucketSpec spec = new BucketSpec(5, 10, 1_000_000);
    int queued = 0;
    for (int i = 0; i < 300; i++) {
      clockMicros.addAndGet(10_000);
      LimiterDecision expected = perEvent.decide(key, spec, 1, false);
      LimiterDecision actual = cached.decide(key, spec, 1, false);
      assertEquals(expected.getClass(), actual.getClass(), "event " + i + ": " + expected + " / " + actual);
      Admission e = admission(expected, 1);
      if (e != null) {
        assertEquals(e.atMillis(), admission(actual, 1).atMillis(), 1, "event " + i);
      } else {
        queued++;
        assertEquals(((LimiterDecision.Queued) expected).notBeforeMillis(),
            ((LimiterDecision.Queued) actual).notBeforeMillis(), 1, "event " + i + ": its turn in line");
      }
    }
    assertTrue(queued > 200, "most events queued: " + queued);
    assertEquals(300, perEventStore.calls());
    assertTrue(store.calls() <= 300 / 4, store.calls() + " calls instead of 300");
  }

  @Test
  void shouldKeepTheStreamThreadFromWaitingOnABusyTenantWithinItsQuota() {
    // 50 events/s against a bucket of 100 at 100/s for 10 s, each renewal answered before the
    // next event: only the tenant's first event waits for Redis; every lease after the first is
    // a renewal asked for while the one before still served.
    try (LateRenewals late = new LateRenewals(store)) {
      List<LimiterDecision> decisions = steadily(late, new BucketKey("api", "busy"),
          new BucketSpec(100, 100, 1_000_000), 500, 20_000);
      for (LimiterDecision d : decisions) {
        assertTrue(d instanceof LimiterDecision.Admit, "inside its quota every event goes at once: " + d);
      }
      assertEquals(1, late.blockingCalls(), "only the first event waited for Redis");
      // Leases grow with the demand to 51 units (50/s for a 1 s target): a few dozen renewals.
      assertTrue(late.renewals() >= 500 / 51 && late.renewals() <= 500 / 10, "renewals: " + late.renewals());
    }
  }

  @Test
  void shouldGiveABusyTenantJustSeenAFullLeaseWithinItsFirstFewEvents() {
    // 100 events/s for one second, a bucket far above it: the first event waits for Redis, and
    // the renewal asked for on its second event is sized at the rate those two show (100/s),
    // not at the decayed count that has seen two events: a handful of Redis calls, not a dozen.
    try (LateRenewals late = new LateRenewals(store)) {
      List<LimiterDecision> decisions = steadily(late, new BucketKey("api", "new"),
          new BucketSpec(1_000, 1_000, 1_000_000), 100, 10_000);
      assertTrue(decisions.stream().allMatch(d -> d instanceof LimiterDecision.Admit));
      assertEquals(1, late.blockingCalls(), "only the first event waited for Redis");
      assertTrue(late.renewals() <= 3, "renewals: " + late.renewals());
    }
  }

  @Test
  void shouldNotRenewForATenantOverItsRate() {
    // The over-rate traffic below: its events are reservations or queued, never served at once
    // from a lease after the burst, so no renewal is asked for (one would come back empty).
    try (LateRenewals late = new LateRenewals(store)) {
      steadily(late, new BucketKey("api", "loud"), new BucketSpec(5, 10, 1_000_000), 300, 10_000);
      // (Only while the first burst of 5 still went at once.)
      assertTrue(late.renewals() <= 5, "renewals: " + late.renewals());
    }
  }

  /**
   * {@code events} of cost 1 for one bucket, {@code everyMicros} apart, through a limiter with a
   * 1 s lease target, every renewal answered before the next event.
   */
  private List<LimiterDecision> steadily(LateRenewals late, BucketKey key, BucketSpec spec, int events, long everyMicros) {
    GateLimiter gate = limiter(late, Duration.ofSeconds(1), 64);
    List<LimiterDecision> decisions = new ArrayList<>();
    for (int i = 0; i < events; i++) {
      clockMicros.addAndGet(everyMicros);
      late.deliverAll();
      decisions.add(gate.decide(key, spec, 1, false));
    }
    return decisions;
  }

  @Test
  void shouldNeverAdmitMoreThanCapacityPlusRateTimesWindowWithRenewalsAnsweredLate() {
    // As the three-holder test above, with every renewal answered a random number of events
    // later (or, when an event finds the lease dry, after a short real wait), decided on the
    // bucket's clock when it is answered: renewals charged while older leases still serve.
    BucketSpec spec = new BucketSpec(20, 100, 500_000);
    BucketKey key = new BucketKey("api", "bursty-late");
    try (LateRenewals late = new LateRenewals(store)) {
      List<GateLimiter> holders = List.of(limiter(late, Duration.ofMillis(100), 16),
          limiter(late, Duration.ofMillis(100), 16), limiter(late, Duration.ofMillis(100), 16));
      Random random = new Random(7);
      List<Admission> admitted = new ArrayList<>();
      for (int round = 0; round < 300; round++) {
        // Busy stretches near the rate (where leases go at once and are renewed), and bursts far
        // above it that empty the bucket.
        boolean burst = random.nextInt(6) == 0;
        int events = burst ? 20 + random.nextInt(40) : 5 + random.nextInt(20);
        for (int e = 0; e < events; e++) {
          clockMicros.addAndGet(burst ? random.nextInt(500) : 15_000 + random.nextInt(20_000));
          late.deliverSome(random, 0.5);
          int cost = 1 + (random.nextInt(5) == 0 ? random.nextInt(3) : 0);
          Admission a = admission(holders.get(random.nextInt(3)).decide(key, spec, cost, false), cost);
          if (a != null) {
            admitted.add(a);
          }
        }
      }
      assertWithinBucket(admitted, spec, "three holders, late renewals");
      assertTrue(admitted.size() > 1000, "enough admissions to mean something: " + admitted.size());
      assertTrue(late.renewals() > 100, "renewals were asked for: " + late.renewals());
    }
  }

  @Test
  void shouldHoldABucketOfFiveToItsBoundThroughBurstsAndPausesOfAnyLength() {
    // GateIT's bucket (5 units at 10/s, 2 s horizon) and lease target (1 s): bursts of up to a
    // dozen events, then pauses of up to 1.5 s, over 200 seeded runs. Pauses let units come due
    // unused; the bucket must not let them go together afterwards. When a lease's reserved units
    // could still be spent after their due time, seed 0 admitted 6 within 63 ms.
    BucketKey key = new BucketKey("api", "pauses");
    BucketSpec spec = new BucketSpec(5, 10, 2_000_000);
    int fromLeases = 0;
    for (int seed = 0; seed < 200; seed++) {
      Random random = new Random(seed);
      InMemoryTokenBucketStore own = new InMemoryTokenBucketStore(clockMicros::get);
      GateLimiter gate = limiter(own, Duration.ofSeconds(1), 1000);
      List<Admission> admitted = new ArrayList<>();
      int decided = 0;
      for (int round = 0; round < 8; round++) {
        int events = 1 + random.nextInt(12);
        for (int i = 0; i < events; i++) {
          clockMicros.addAndGet(1_000 + random.nextInt(20_000));
          Admission a = admission(gate.decide(key, spec, 1, false), 1);
          decided++;
          if (a != null) {
            admitted.add(a);
          }
        }
        clockMicros.addAndGet(random.nextInt(1_500_000));
      }
      fromLeases += decided - own.calls();
      clockMicros.addAndGet(60_000_000); // a fresh bucket for the next seed
      assertWithinBucket(admitted, spec, "seed " + seed);
    }
    assertTrue(fromLeases > 1000, "leases served many of the events: " + fromLeases);
  }

  @Test
  void shouldLendNothingAheadToAShadowBucketSoEnforcementAfterItStartsOutOfDebt() {
    // 100 events/s against 10/s with a burst of 5 and a 1 s horizon, for 3 s, in shadow mode,
    // with leases on: only units the bucket holds are charged (at once), the rest would defer.
    GateLimiter shadow = limiter(Duration.ofSeconds(1), 64);
    BucketKey key = new BucketKey("api", "watched");
    BucketSpec spec = new BucketSpec(5, 10, 1_000_000);
    List<Admission> charged = new ArrayList<>();
    int wouldDefer = 0;
    for (int i = 0; i < 300; i++) {
      clockMicros.addAndGet(10_000);
      LimiterDecision d = shadow.decide(key, spec, 1, false, true);
      if (d instanceof LimiterDecision.Admit a) {
        charged.add(new Admission(a.atMillis(), 1));
      } else if (d instanceof LimiterDecision.WouldDefer w) {
        wouldDefer++;
        long nowMillis = clockMicros.get() / 1000;
        assertTrue(w.notBeforeMillis() > nowMillis && w.notBeforeMillis() <= nowMillis + 101,
            "the wait it alone would have had, at most one unit at 10/s: " + (w.notBeforeMillis() - nowMillis) + " ms");
      } else {
        throw new AssertionError("a shadow bucket neither reserves nor queues: event " + i + ": " + d);
      }
    }
    assertWithinBucket(charged, spec, "shadow charges");
    assertTrue(wouldDefer > 200, "most events would have been deferred: " + wouldDefer);

    // Enforced right after (another task, as when shadow mode is switched off): the bucket owes
    // nothing to the shadow traffic, so one unit is due within 100 ms. Enforcing the same 300
    // events would have queued them to about 27 s ahead.
    LimiterDecision enforced = limiter(Duration.ofSeconds(1), 64).decide(key, spec, 1, false);
    long nowMillis = clockMicros.get() / 1000;
    long due = enforced instanceof LimiterDecision.Admit a ? a.atMillis()
        : enforced instanceof LimiterDecision.Reserved r ? r.notBeforeMillis() : Long.MAX_VALUE;
    assertTrue(due <= nowMillis + 101, "enforced after shadow: " + enforced + " at " + nowMillis);
  }

  @Test
  void shouldQueueFarAheadWhenTheSameTrafficIsEnforced() {
    // The contrast to the test above: the same 300 events enforced leave a line far ahead.
    GateLimiter gate = limiter(Duration.ofSeconds(1), 64);
    BucketKey key = new BucketKey("api", "enforced");
    BucketSpec spec = new BucketSpec(5, 10, 1_000_000);
    for (int i = 0; i < 300; i++) {
      clockMicros.addAndGet(10_000);
      gate.decide(key, spec, 1, false);
    }
    LimiterDecision next = limiter(Duration.ofSeconds(1), 64).decide(key, spec, 1, false);
    long nowMillis = clockMicros.get() / 1000;
    assertTrue(next instanceof LimiterDecision.Queued q && q.notBeforeMillis() > nowMillis + 20_000, "" + next);
  }
}
