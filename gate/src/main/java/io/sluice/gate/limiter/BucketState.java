package io.sluice.gate.limiter;

import java.util.List;

/**
 * What Redis stores for one bucket (the hash fields of token_bucket.lua).
 *
 * @param level        tokens after the last update; negative when units are reserved ahead
 * @param updatedMicros time of the last update (microseconds since the epoch); never moves back
 * @param lineMicros   when the last place in the waiting line is served; 0 when there is no line
 * @param lastLeaseId  the id of the last lease granted (0: none yet)
 * @param leases       the leases not yet ended, in the order they were granted
 * @param rate         the refill the bucket last decided at, kept while it owes reservations or
 *                     has an old line (0: not known, the bucket owes none)
 * @param top          after a change that kept the debt in units: the highest rate the
 *                     reservations it owes were sold at (0 otherwise)
 * @param debtEndMicros with {@code top}: when the last of those reservations is due (the rest of
 *                     the debt is not sold time); 0 otherwise
 * @param oldRate      the old line's rate: reservations sold before a raise, still running
 *                     (0: none; see {@link Refill})
 * @param oldEndMicros when the old line ends (0: none)
 * @param lostEndMicros after a loss of Redis's data: when the last reservation the lost bucket
 *                     may have sold is due (the loss plus a reach, or the hold); until then the
 *                     debt may hold reservations sold at a rate Redis lost with the bucket, so a
 *                     change of rate sells nothing due before it (0: none)
 */
public record BucketState(double level, long updatedMicros, double lineMicros, long lastLeaseId, List<HeldLease> leases,
                          double rate, double top, long debtEndMicros, double oldRate, long oldEndMicros,
                          long lostEndMicros) {
  public BucketState {
    // Most buckets hold no lease: no copy to make (a simulation decides millions of these).
    leases = leases.isEmpty() ? List.of() : List.copyOf(leases);
  }

  /** A bucket that Redis did not lose within a reach (no {@code lostEndMicros}). */
  public BucketState(double level, long updatedMicros, double lineMicros, long lastLeaseId, List<HeldLease> leases,
      double rate, double top, long debtEndMicros, double oldRate, long oldEndMicros) {
    this(level, updatedMicros, lineMicros, lastLeaseId, leases, rate, top, debtEndMicros, oldRate, oldEndMicros, 0);
  }

  /** A bucket with no rate known and no old line. */
  public BucketState(double level, long updatedMicros, double lineMicros, long lastLeaseId, List<HeldLease> leases) {
    this(level, updatedMicros, lineMicros, lastLeaseId, leases, 0, 0, 0, 0, 0, 0);
  }

  /**
   * A lease not yet ended: {@code units} beyond their asker's need, until {@code deadlineMicros}.
   * The first {@code held} of them were in the bucket at the grant (they lower its cap); the rest
   * are reserved, unit {@code i} due at {@code grantedMicros + max(0, (i - lead) / refill)}.
   */
  public record HeldLease(long id, long deadlineMicros, int units, int held, long grantedMicros, double lead) {
    /** Names the same lease as a release does: id, deadline and units. */
    boolean isNamedBy(LeaseRelease release) {
      return id == release.id() && deadlineMicros == release.deadlineMicros() && units == release.units();
    }
  }

  /** The state of a bucket never seen (or expired): full, as of now, holding no lease. */
  public static BucketState full(BucketSpec spec, long nowMicros) {
    return new BucketState(spec.capacity(), nowMicros, 0, 0, List.of());
  }

  /** Units the bucket held that leases not yet ended hold: it refills only up to capacity minus these. */
  public int held() {
    int held = 0;
    for (HeldLease l : leases) {
      held += l.held();
    }
    return held;
  }
}
