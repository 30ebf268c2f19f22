package io.sluice.gate.limiter;

/**
 * What the gate asks of a bucket for one event.
 *
 * @param want       units it would like, &ge; need; the extra ones form a lease for later events,
 *                   or, when the event is queued, places in line for them
 * @param need       units the current event must have (its cost), &ge; 1; 0 only for a
 *                   {@link #renewal}, which is asked for no event
 * @param holder     the event holds a ticket: it waited its turn, charged within the holders' reach
 *                   ({@link TokenBucketMath#reachMicros}) rather than the horizon
 * @param holdMicros how long the bucket holds a lease of the extra units against its cap; &gt; 0
 *                   when want &gt; need (see {@link Lease})
 * @param release    a lease to release before deciding, or null
 * @param places     places in line to give back before deciding, or null
 * @param shadow     shadow mode: the event is admitted whatever the answer, so it is charged only
 *                   units the bucket holds now (a lease likewise); otherwise nothing is charged,
 *                   reserved or queued, and the ticket is the wait it would have had
 * @param owed       units the local fallback already admitted while Redis was away: charged
 *                   whatever the level (with {@code holder})
 */
public record AcquireRequest(
    int want, int need, boolean holder, long holdMicros, LeaseRelease release, PlacesRelease places,
    boolean shadow, boolean owed) {
  public AcquireRequest(int want, int need, boolean holder, long holdMicros, LeaseRelease release, PlacesRelease places) {
    this(want, need, holder, holdMicros, release, places, false);
  }

  public AcquireRequest(int want, int need, boolean holder, long holdMicros, LeaseRelease release, PlacesRelease places,
      boolean shadow) {
    this(want, need, holder, holdMicros, release, places, shadow, false);
  }

  public AcquireRequest {
    if (need < (shadow ? 0 : 1) || want < Math.max(1, need)) {
      throw new IllegalArgumentException("need >= 1 (0 only for a renewal) and want >= need: want=" + want + " need=" + need);
    }
    if (want > need && holdMicros <= 0) {
      throw new IllegalArgumentException("a lease (want > need) needs a hold time > 0: " + holdMicros);
    }
    if (holder && want > need) {
      throw new IllegalArgumentException("a ticket holder takes its need only: want=" + want + " need=" + need);
    }
    if (owed && !holder) {
      throw new IllegalArgumentException("owed units are charged as a holder's");
    }
    if (shadow && (holder || places != null)) {
      // Shadow events are never queued: no ticket and no places in line to give back.
      throw new IllegalArgumentException("a shadow request neither holds a ticket nor gives back places");
    }
  }

  /** Exactly the event's units, no lease, nothing released. */
  public static AcquireRequest single(int cost) {
    return new AcquireRequest(cost, cost, false, 0, null, null);
  }

  /**
   * Units and, beyond {@code need}, a lease held for {@code holdMicros} (or places in line). The
   * hold is sent whatever the want: a caller that leases names its hold on every call, so a bucket
   * Redis lost is rebuilt to assume its leases may still be spent (the script's "Lost data").
   */
  public static AcquireRequest leasing(int want, int need, long holdMicros) {
    return new AcquireRequest(want, need, false, holdMicros, null, null);
  }

  /** A ticket holder's units, charged without the horizon check. */
  public static AcquireRequest holding(int cost) {
    return holding(cost, 0);
  }

  /** {@link #holding(int)} by a caller whose leases are held {@code holdMicros} (see {@link #leasing}). */
  public static AcquireRequest holding(int cost, long holdMicros) {
    return new AcquireRequest(cost, cost, true, holdMicros, null, null);
  }

  /**
   * Units the local fallback admitted while Redis was away, charged whatever the level: they are
   * spent already, and Redis's ledger must hold every unit admitted.
   */
  public static AcquireRequest owing(int units) {
    return owing(units, 0);
  }

  /** {@link #owing(int)} by a caller whose leases are held {@code holdMicros} (see {@link #leasing}). */
  public static AcquireRequest owing(int units, long holdMicros) {
    return new AcquireRequest(units, units, true, holdMicros, null, null, false, true);
  }

  /** Shadow mode: units the bucket holds now and, beyond {@code need}, a lease of held units only. */
  public static AcquireRequest shadowing(int want, int need, long holdMicros) {
    return new AcquireRequest(want, need, false, holdMicros, null, null, true);
  }

  /**
   * A lease taken ahead for a busy tenant's coming events, while its current lease still serves
   * (so the stream thread need not wait for it): {@code want} units, none for an event now. It
   * follows the shadow rule of the script: only units the bucket holds now are charged, never a
   * reserved one, and a bucket that holds fewer charges nothing, queues nothing and writes no
   * line. So a renewal can only ever hold units that a call made when the next event comes could
   * have had too; when it comes back short, that event asks the bucket itself.
   */
  public static AcquireRequest renewal(int want, long holdMicros) {
    return new AcquireRequest(want, 0, false, holdMicros, null, null, true);
  }

  /** The same request, releasing {@code lease} first. */
  public AcquireRequest releasing(LeaseRelease lease) {
    return new AcquireRequest(want, need, holder, holdMicros, lease, places, shadow, owed);
  }

  /** The same request, giving back {@code unused} places in line first. */
  public AcquireRequest givingBack(PlacesRelease unused) {
    return new AcquireRequest(want, need, holder, holdMicros, release, unused, shadow, owed);
  }
}
