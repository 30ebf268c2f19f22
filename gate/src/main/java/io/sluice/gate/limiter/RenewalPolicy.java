package io.sluice.gate.limiter;

/**
 * When to renew a tenant's lease ahead of need, so that the stream thread does not wait for Redis
 * when it runs out: a renewal is asked for while the lease still serves, and its answer is waiting
 * when the next event finds the lease spent.
 *
 * <p>The lease is expected to end (by running dry at the tenant's demand, or by its time of use
 * closing, whichever is sooner) within the lookahead: renew now. The lookahead is half the lease
 * target, which is how much demand a lease is sized for: a steady tenant renews about halfway
 * through each lease, thousands of round trips before it would have to wait, and holds at most
 * about one and a half leases at a time. A quiet tenant never renews: its one-unit lease, taken
 * with an event, is not expected to run dry within the lookahead, and by its next event the lease
 * has long closed (that event asks Redis itself, as before). Whether to renew is decided only
 * when an event is served from the lease, so a tenant that has stopped renews nothing.
 *
 * @param lookaheadMicros how soon the lease must be expected to end for a renewal, &gt; 0
 */
record RenewalPolicy(long lookaheadMicros) {
  RenewalPolicy {
    if (lookaheadMicros <= 0) {
      throw new IllegalArgumentException("a renewal lookahead must be > 0: " + lookaheadMicros);
    }
  }

  /** Renews halfway through a lease sized for {@code leaseTargetMicros} of demand. */
  static RenewalPolicy forLeaseTarget(long leaseTargetMicros) {
    return new RenewalPolicy(Math.max(1, leaseTargetMicros / 2));
  }

  /**
   * @param unitsLeft       units the current lease can still hand out
   * @param useLeftMicros   how long it may still hand them out
   * @param demandPerSecond the tenant's demand at this instance, cost units per second
   */
  boolean shouldRenew(int unitsLeft, long useLeftMicros, double demandPerSecond) {
    if (demandPerSecond <= 0) {
      return false;
    }
    double untilDryMicros = unitsLeft / demandPerSecond * 1e6;
    return Math.min(untilDryMicros, useLeftMicros) <= lookaheadMicros;
  }
}
