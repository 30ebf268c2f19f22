package io.sluice.gate.limiter;

/**
 * A run of units charged to a bucket in one Redis call and handed out locally, one event at a
 * time, so that a busy tenant costs one round trip per lease instead of one per event.
 *
 * <h2>Why handing out charged units later is still exact (invariant 1)</h2>
 *
 * Every unit was charged in Redis, so leases never create tokens. The danger is subtler: a unit
 * charged at {@code t0} but used at {@code t > t0} behaves like a token saved outside the bucket.
 * If the bucket meanwhile refilled up to capacity, a real bucket would have thrown away refill that
 * the saved unit now spends, and a burst could reach {@code capacity + saved}.
 *
 * <p>So the bucket itself holds every lease against its cap: while a lease of {@code k} extra units
 * it had lives, Redis refills only up to {@code capacity - k} (the script's header has the
 * bookkeeping). Then, at every instant, Redis level + held units still unused in live leases &le;
 * capacity, and the two together behave like one bucket of the configured size, however late a
 * held unit is used. (Reserved units are another matter: see below.) The rule left for the holder
 * is to stop before the bucket lets the lease go:
 * <pre>
 *   hand out a unit only while  upper bound of the bucket's clock &lt; useUntil &lt; lease end
 * </pre>
 * and to tell the bucket, with its next request, how many units it used ({@link #release}), so the
 * unused ones go back and the cap rises at once instead of at the lease's end. A lease that is
 * never released (its holder crashed, or moved on) ends at its deadline: its unused units are lost,
 * which is stricter, never looser. While a lease lives, its units already used still lower the cap;
 * so a tenant's burst room is short by at most two leases (the one in use and its renewal, at most
 * {@code gate.maxLease} units each) for at most a lease's life.
 *
 * <h2>Reserved units: only before their due time</h2>
 *
 * Unit {@code j} (1-based) of a charge is due at {@code t0 + max(0, (j - L) / refill)}, {@code L}
 * the level before it. Units with {@code j <= L} were in the bucket: they are the saved tokens
 * above, held against the cap, good at once and until the end of use. Units beyond {@code L} are
 * reserved: refill that has not arrived. One is handed out only while its due time is still
 * ahead (on the upper bound of the bucket's clock), as a reservation at that time, exactly what a
 * call to Redis would have answered. It is never spent after its due time: the bucket stores no
 * refill beyond its cap, so a reserved unit left unused past its due time is not a saved token.
 * With a bucket of 5 at 10/s, nine reserved units left idle for 900 ms and then spent at once
 * would be nine admissions where the bucket had room for five (GateIT found this: six in 33 ms).
 * When the next unit is reserved and due, the lease is done; the release gives back the reserved
 * units still ahead of their due time (judged by Redis on its own clock), and those that fell due
 * unused are lost: stricter, never looser.
 *
 * <h2>Clocks</h2>
 *
 * Times here are the bucket's clock (Redis TIME), estimated locally from the round trip that took
 * the lease: "now" lies between {@code t0 + (local - received)} (a lower bound, used for due times
 * and the admission timestamp) and {@code t0 + (local - sent)} (an upper bound, used for the
 * end of use; see {@link BucketClock}). Each estimate errs on the strict side. Not thread-safe: a lease belongs to one
 * stream task.
 */
public final class Lease {
  private final BucketSpec spec;
  private final Acquisition grant;
  private final int need;
  private final long useUntilMicros;
  private final BucketClock clock;
  private int used;

  /**
   * @param grant         a granted acquisition
   * @param need          the asking event's units (the first {@code need} of the grant); 0 for a
   *                      renewal ({@link AcquireRequest#renewal}), whose units are all for later
   * @param useMicros     how long after the grant (bucket clock) units may be handed out; less
   *                      than the time the bucket holds the lease
   * @param sentNanos     local monotonic time the request was sent
   * @param receivedNanos local monotonic time the answer arrived
   */
  public Lease(BucketSpec spec, Acquisition grant, int need, long useMicros, long sentNanos, long receivedNanos) {
    if (!grant.isGranted() || need > grant.granted()) {
      throw new IllegalArgumentException("a lease needs granted units for its asker: " + grant);
    }
    if (grant.granted() > need && grant.nowMicros() + useMicros >= grant.leaseEndMicros()) {
      throw new IllegalArgumentException(
          "units must stop being used before the bucket lets the lease go: use " + useMicros + " µs, " + grant);
    }
    this.spec = spec;
    this.grant = grant;
    this.need = need;
    this.useUntilMicros = grant.nowMicros() + useMicros;
    this.clock = new BucketClock(grant.nowMicros(), sentNanos, receivedNanos);
  }

  /** Where and when an event may go. */
  public record Slot(long dueMicros, long decidedMicros) {
    /** The event may go at once: its last unit was due when it was handed out. */
    public boolean isImmediate() {
      return dueMicros <= decidedMicros;
    }

    /** When the event is admitted: now if immediate, else when its reservation falls due. */
    public long admittedMicros() {
      return Math.max(dueMicros, decidedMicros);
    }
  }

  /** The asking event's units, decided atomically in Redis at the grant's time. */
  public Slot takeAtGrant() {
    if (used != 0) {
      throw new IllegalStateException("the asking event takes the first " + need + " units, once");
    }
    used = need;
    return new Slot(dueOfUnit(need), grant.nowMicros());
  }

  /**
   * Takes {@code cost} units for an event seen now, or returns null when this lease cannot serve
   * it (too few units left, its time of use is over, or its next units are reserved ones whose due
   * time may have come); the caller then asks Redis again.
   */
  public Slot take(int cost, long localNanos) {
    if (used < need) {
      throw new IllegalStateException("the asking event takes its units first");
    }
    long upper = clock.upperMicros(localNanos);
    if (used + cost > grant.granted() || upper >= useUntilMicros) {
      return null;
    }
    // Every reserved unit of the event must still be ahead of the latest the bucket's clock
    // could read; due times rise with j, so its first reserved unit decides. (The last alone was
    // judged before: an event of 2 took a reserved unit fallen due beside one still ahead, and
    // spent refill the bucket never stored, QuotaBoundProperties.)
    for (int j = used + 1; j <= used + cost; j++) {
      long dueJ = dueOfUnit(j);
      if (dueJ > grant.nowMicros()) {
        if (dueJ <= upper) {
          return null;
        }
        break;
      }
    }
    // The event goes when its last unit is due.
    long due = dueOfUnit(used + cost);
    used += cost;
    return new Slot(due, clock.lowerMicros(localNanos));
  }

  /** How long units may still be handed out, on the upper bound of the bucket's clock; 0 when over. */
  public long useLeftMicros(long localNanos) {
    return Math.max(0, useUntilMicros - clock.upperMicros(localNanos));
  }

  /**
   * Units this lease holds against the bucket's cap for as long as the bucket keeps it, used or
   * not: every unit beyond the asker's need (the reserved ones too: stricter). 0 for a grant
   * that made no lease.
   */
  public int heldUnits() {
    return grant.leaseId() == 0 ? 0 : grant.granted() - need;
  }

  /**
   * How much longer the bucket keeps this lease (and its cap), on the lower bound of the
   * bucket's clock: never shorter than it is.
   */
  public long heldForMicros(long localNanos) {
    return grant.leaseId() == 0 ? 0
        : Math.max(0, grant.leaseEndMicros() - clock.lowerMicros(localNanos));
  }

  /** Extra units not handed out yet. */
  public int remaining() {
    return grant.granted() - used;
  }

  /**
   * What to tell the bucket with the next request so it takes back the unused units and lifts its
   * cap; null when there is nothing to release, or when the bucket may already have let the lease
   * go (then it is not named at all: the bucket would ignore it anyway).
   */
  public LeaseRelease release(long localNanos) {
    if (grant.leaseId() == 0 || clock.upperMicros(localNanos) >= grant.leaseEndMicros()) {
      return null;
    }
    return new LeaseRelease(grant.leaseId(), grant.leaseEndMicros(), grant.granted() - need, used - need);
  }

  private long dueOfUnit(int j) {
    // (Beside an old line the refill is slower until it ends: the grant says so, Refill.)
    return grant.dueOfUnit(j, spec);
  }

  /** The bucket's shape this was granted under. */
  BucketSpec spec() {
    return spec;
  }
}
