package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * Plays a {@link QuotaHistory} as the gate's instances would, on one {@link QuotaBucket}, and says
 * whether what was admitted keeps the documented bound: in any window of the admission instants,
 * at most {@code capacity + refill * T} units (T the window's length, plus the microsecond each due
 * time is rounded up by).
 *
 * <p>Each instance keeps the lease its last call took and hands its units out locally, as {@link
 * Lease} does (the same class, on a clock with no round trip): a unit the bucket held is admitted
 * when it is handed out, a reserved one at its due time; the next call gives the lease back. An
 * event that does not fit comes back at its turn plus some lateness, holding its ticket. A unit
 * is counted at its own admission instant, so an event of several units reserved ahead is not
 * counted whole at its last unit's due time.
 */
final class QuotaBound {
  /** One unit admitted at {@code micros}. */
  record Unit(long micros) {}

  /**
   * What a history admitted, and its changes of rate ({@link ChangingRateBound}: the first the
   * starting rate; each at the bucket's decision before it, from which the new rate counts).
   */
  record Played(List<Unit> units, List<long[]> changes) {}

  private record Holder(long micros, int instance, int cost) {}

  private QuotaBound() {}

  /** What {@code history} admits on {@code bucket}, starting at {@code startMicros}. */
  static Played play(QuotaHistory history, QuotaBucket bucket, long startMicros) throws Exception {
    BucketSpec spec = history.spec();
    List<long[]> changes = new ArrayList<>();
    changes.add(new long[] {Long.MIN_VALUE / 4, 0});
    Lease[] leases = new Lease[history.instances()];
    Acquisition[] grants = new Acquisition[history.instances()];
    int[] used = new int[history.instances()];
    PriorityQueue<Holder> holders = new PriorityQueue<>(Comparator.comparingLong(Holder::micros));
    List<Unit> admitted = new ArrayList<>();
    long now = startMicros;
    int late = 0;
    for (QuotaHistory.Step step : history.steps()) {
      now += step.gapMicros();
      while (!holders.isEmpty() && holders.peek().micros() <= now) {
        Holder h = holders.poll();
        Acquisition a = bucket.acquire(spec,
            AcquireRequest.holding(h.cost(), QuotaHistory.HOLD_MICROS), h.micros());
        if (a.isGranted()) {
          admit(admitted, a, spec, 0, h.cost(), h.micros());
        } else {
          holders.add(new Holder(a.nowMicros() + a.ticketMicros()
              + history.lateness().get(late++ % history.lateness().size()), h.instance(), h.cost()));
        }
      }
      if (step instanceof QuotaHistory.Wipe) {
        bucket.wipe();
        continue;
      }
      if (step instanceof QuotaHistory.Change c) {
        spec = history.specAt(c.rate());
        // The bucket takes a change as of its last decision; the gate drops the bucket's leases
        // when its terms change (no unit of them is handed out after).
        long updated = bucket.updatedMicros();
        changes.add(new long[] {updated < 0 ? now : updated, c.rate()});
        Arrays.fill(leases, null);
        continue;
      }
      QuotaHistory.Event e = (QuotaHistory.Event) step;
      int i = e.instance();
      if (leases[i] != null && leases[i].take(e.cost(), now * 1000) != null) {
        admit(admitted, grants[i], spec, used[i], e.cost(), now);
        used[i] += e.cost();
        continue;
      }
      AcquireRequest request = AcquireRequest.leasing(e.cost() + e.extra(), e.cost(),
          QuotaHistory.HOLD_MICROS);
      LeaseRelease release = leases[i] == null ? null : leases[i].release(now * 1000);
      if (release != null) {
        request = request.releasing(release);
      }
      Acquisition a = bucket.acquire(spec, request, now);
      leases[i] = null;
      if (!a.isGranted()) {
        holders.add(new Holder(a.nowMicros() + a.ticketMicros()
            + history.lateness().get(late++ % history.lateness().size()), i, e.cost()));
        continue;
      }
      Lease lease = new Lease(spec, a, e.cost(), QuotaHistory.USE_MICROS, now * 1000, now * 1000);
      lease.takeAtGrant();
      admit(admitted, a, spec, 0, e.cost(), now);
      if (a.granted() > e.cost()) {
        leases[i] = lease;
        grants[i] = a;
        used[i] = e.cost();
      }
    }
    return new Played(admitted, changes);
  }

  /** Units {@code from + 1 .. from + cost} of {@code grant}, each at its due time or now if later. */
  private static void admit(List<Unit> admitted, Acquisition grant, BucketSpec spec, int from, int cost,
      long now) {
    for (int j = from + 1; j <= from + cost; j++) {
      admitted.add(new Unit(Math.max(now, grant.dueOfUnit(j, spec))));
    }
  }

  /**
   * The first window over the bound, described (empty if none): {@code capacity + refill * T}
   * while the rate holds, the documented bound across a change ({@link ChangingRateBound}).
   */
  static Optional<String> firstExcess(Played played, QuotaHistory history) {
    return ChangingRateBound.firstExcess(played.units().stream().map(Unit::micros).toList(),
        history.spec().capacity(), history.rates(), played.changes(),
        TokenBucketMath.reachMicros(history.spec()), 1);
  }

  /** The first window holding more than {@code capacity + refill * T}, described; empty if none. */
  static Optional<String> firstExcess(List<Unit> admitted, BucketSpec spec) {
    long[] t = admitted.stream().mapToLong(Unit::micros).sorted().toArray();
    for (int i = 0; i < t.length; i++) {
      for (int k = i; k < t.length; k++) {
        double window = (t[k] - t[i] + 1) / 1e6;
        double allowed = spec.capacity() + spec.refillPerSecond() * window;
        if (k - i + 1 > allowed + 1e-6) {
          return Optional.of((k - i + 1) + " units admitted from " + t[i] + " to " + t[k]
              + " us, allowed " + allowed + " (" + spec + ")");
        }
      }
    }
    return Optional.empty();
  }
}
