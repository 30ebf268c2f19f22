package io.sluice.topology.limiter;

/**
 * A run of units charged to a bucket in one Redis call and handed out locally, one event at a
 * time, so that a busy tenant costs one round trip per lease instead of one per event.
 *
 * <h2>Why handing out charged units later is still exact (invariant 1)</h2>
 *
 * Every unit was charged in Redis, so leases never create tokens. The danger is subtler: a unit
 * charged at {@code t0} but used at {@code t > t0} behaves like a token saved outside the bucket.
 * If the bucket meanwhile refilled up to capacity, a real bucket would have thrown away refill that
 * the held unit now spends, and a burst could reach {@code capacity + held}.
 *
 * <p>That cannot happen while Redis level + held units &le; capacity, because then Redis never clips
 * a refill and (Redis + held) evolves exactly like one real bucket. A lease of {@code k} units taken
 * when the level was {@code L} leaves Redis at {@code L - k}, rising at most at the refill rate; with
 * {@code used} of its units handed out, {@code held = k - used}, so
 * <pre>
 *   Redis(t) + held(t) &le; (L - k) + refill·(t - t0) + (k - used)  &le; capacity
 *   while t &le; t0 + (capacity - L + used) / refill                  (the lease's validity)
 * </pre>
 * The left side only grows between hand-outs, so checking it when a unit is handed out covers the
 * whole time the unit was held. Each unit used moves the limit by one unit of refill: a tenant
 * that keeps up with its refill keeps its lease, one that does not loses it. A lease that fails
 * the check once is dropped for good (its unused units are as good as spent: stricter, never
 * looser). Other leases and other instances only lower Redis, and while two leases are both alive
 * the older one's bound covers the newer one's units (the newer one's {@code L} already excludes
 * the older one's {@code k}). A lease taken from a full bucket is good for one unit of refill
 * after its asker, which is as it should be: a tenant with a full bucket is not busy.
 *
 * <h2>Due times</h2>
 *
 * Unit {@code j} (1-based) is due at {@code t0 + max(0, (j - L) / refill)}: units the bucket held
 * are due at once, units taken as debt (reservations) when the refill pays them. An event takes its
 * cost in consecutive units and may go at the due time of its last one.
 *
 * <h2>Clocks</h2>
 *
 * Times here are the bucket's clock (Redis TIME), estimated locally from the round trip that took
 * the lease: "now" lies between {@code t0 + (local - received)} (a lower bound, used for due times
 * and the admission timestamp) and {@code t0 + (local - sent)} (an upper bound, used for the
 * validity check). Each estimate errs on the strict side. Not thread-safe: a lease belongs to one
 * stream task.
 */
public final class Lease {
  private final BucketSpec spec;
  private final Acquisition grant;
  private final long sentNanos;
  private final long receivedNanos;
  private int used;

  /**
   * @param grant         a granted acquisition
   * @param sentNanos     local monotonic time the request was sent
   * @param receivedNanos local monotonic time the answer arrived
   */
  public Lease(BucketSpec spec, Acquisition grant, long sentNanos, long receivedNanos) {
    if (!grant.isGranted()) {
      throw new IllegalArgumentException("a lease needs granted units: " + grant);
    }
    this.spec = spec;
    this.grant = grant;
    this.sentNanos = sentNanos;
    this.receivedNanos = receivedNanos;
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

  /**
   * The units for the event that asked for this lease, decided atomically in Redis at the grant's
   * time, so the validity window does not apply to them.
   */
  public Slot takeAtGrant(int cost) {
    if (used != 0 || cost > grant.granted()) {
      throw new IllegalStateException("the asking event takes the first " + cost + " of " + grant.granted());
    }
    used = cost;
    return new Slot(dueOfUnit(cost), grant.nowMicros());
  }

  /**
   * Takes {@code cost} units for an event seen now, or returns null when this lease cannot serve
   * it (too few units left, or past its validity); the caller then asks Redis for a new one.
   */
  public Slot take(int cost, long localNanos) {
    if (used + cost > grant.granted()) {
      return null;
    }
    long upper = grant.nowMicros() + Math.max(0, (localNanos - sentNanos) / 1000);
    if (upper > validUntilMicros()) {
      used = grant.granted(); // dropped for good: see the class comment
      return null;
    }
    long lower = grant.nowMicros() + Math.max(0, (localNanos - receivedNanos) / 1000);
    used += cost;
    return new Slot(dueOfUnit(used), lower);
  }

  public int remaining() {
    return grant.granted() - used;
  }

  /** The latest bucket time at which the next unit may be handed out. */
  public long validUntilMicros() {
    return grant.nowMicros()
        + (long) Math.floor((spec.capacity() - grant.levelBefore() + used) * spec.microsPerUnit());
  }

  /** True when no event can be served from this lease any more (for eviction). */
  public boolean isSpent(long localNanos) {
    return remaining() == 0
        || grant.nowMicros() + (localNanos - sentNanos) / 1000 > validUntilMicros();
  }

  private long dueOfUnit(int j) {
    double wait = (j - grant.levelBefore()) * spec.microsPerUnit();
    return grant.nowMicros() + (long) Math.ceil(Math.max(0, wait));
  }
}
