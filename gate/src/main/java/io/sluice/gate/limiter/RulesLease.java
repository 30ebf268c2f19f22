package io.sluice.gate.limiter;

/**
 * Units leased from every bucket of a rule set in one {@code quota_rules.lua} call (all or none),
 * handed out in process: an event whose rules are exactly this set takes its cost from all of them
 * together, so one lease stands for the same units in each rule.
 *
 * <p>Why that is exact: the units were charged in every bucket, and each bucket holds them against
 * its cap until the lease is released or ends (the script's "Leases across rules"), so for each
 * rule on its own, level + units unused in live leases &le; capacity: the leases of one bucket held
 * by several rule sets and instances (a tier budget) are all counted there. The holder's part, as
 * for {@link Lease}: hand out a unit only while the upper bound of the bucket's clock is before the
 * end of use, which is before the lease's deadline, and name the lease with a later call
 * ({@link #release}) so the unused units go back. Only units the buckets held are leased, never
 * refill still to come, so a lease serves only "admit now" decisions: every event it serves is
 * admitted at once, stamped with the lower bound of the bucket's clock; waits, refusals and shadow
 * refusals are the script's. Not thread-safe: a lease belongs to one stream task.
 */
public final class RulesLease {
  private final RulesAcquisition grant;
  private final long useUntilMicros;
  private final BucketClock clock;
  private int used;

  /**
   * @param grant         a granted answer with a lease ({@link RulesAcquisition#leaseUnits} &gt; 0)
   * @param useMicros     how long after the grant (bucket clock) units may be handed out; less
   *                      than the time the buckets hold the lease
   * @param sentNanos     local monotonic time the call was sent
   * @param receivedNanos local monotonic time the answer arrived
   */
  public RulesLease(RulesAcquisition grant, long useMicros, long sentNanos, long receivedNanos) {
    if (!grant.isGranted() || grant.leaseUnits() <= 0) {
      throw new IllegalArgumentException("not a lease: " + grant);
    }
    if (grant.nowMicros() + useMicros >= grant.leaseEndMicros()) {
      throw new IllegalArgumentException(
          "units must stop being used before the buckets let the lease go: use " + useMicros + " µs, " + grant);
    }
    this.grant = grant;
    this.useUntilMicros = grant.nowMicros() + useMicros;
    this.clock = new BucketClock(grant.nowMicros(), sentNanos, receivedNanos);
  }

  /**
   * Takes {@code cost} units of every rule for an event seen now and returns its admission time
   * (the lower bound of the bucket's clock, microseconds), or -1 when this lease cannot serve it
   * (too few units left, or its time of use is over): the caller then asks the script.
   */
  public long take(int cost, long localNanos) {
    if (used + cost > grant.leaseUnits() || clock.upperMicros(localNanos) >= useUntilMicros) {
      return -1;
    }
    used += cost;
    return clock.lowerMicros(localNanos);
  }

  /** Units not handed out yet. */
  public int remaining() {
    return grant.leaseUnits() - used;
  }

  /**
   * What to give back with the next call: the unused units and the caps; null when the buckets
   * may already have let the lease go (then its unused units are lost: stricter).
   */
  public RulesRelease release(long localNanos) {
    if (clock.upperMicros(localNanos) >= grant.leaseEndMicros()) {
      return null;
    }
    return new RulesRelease(grant.leaseId(), grant.leaseEndMicros(), grant.leaseUnits(), used);
  }
}
