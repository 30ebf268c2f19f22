package io.sluice.dispatcher.leak;

/**
 * A claim against every limit of a provider ({@link LeakyBucket#claim(String, ProviderLimits,
 * LimitedClaim)}).
 *
 * @param wanted          slots the caller would like, &ge; 1
 * @param lookaheadMicros how far past now a slot may lie
 * @param slotCost        the cost units each slot reserves in every cost limit: the cost of the
 *                        event the caller expects to send in it; a slot may carry an event of at
 *                        most this cost (1 when the provider has no cost limit)
 * @param leasePrefix     names the concurrency leases of this claim: slot i holds lease
 *                        {@code leasePrefix + ":" + i} until released; unique per claim
 * @param leaseMicros     how long a lease lives past its slot if never released (an instance that
 *                        died): the call's timeout and some
 */
public record LimitedClaim(int wanted, long lookaheadMicros, long slotCost, String leasePrefix,
    long leaseMicros) {
  public LimitedClaim {
    if (wanted < 1 || lookaheadMicros < 0 || slotCost < 1 || leaseMicros <= 0) {
      throw new IllegalArgumentException("wanted " + wanted + ", lookahead " + lookaheadMicros
          + ", slotCost " + slotCost + ", lease " + leaseMicros + " out of range");
    }
  }

  /** The lease slot {@code i} of the answer holds. */
  public String leaseId(int i) {
    return leasePrefix + ":" + i;
  }
}
