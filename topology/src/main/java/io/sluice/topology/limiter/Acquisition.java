package io.sluice.topology.limiter;

/**
 * The answer of the bucket to one {@link AcquireRequest} (the return array of token_bucket.lua).
 * Modelled on Bucket4j's ConsumptionProbe: it says both what was granted and, when nothing was,
 * when to come back.
 *
 * @param granted        units charged; 0 when none were (then see {@code ticketMicros})
 * @param levelBefore    the level just before the charge, after refill; unit j of the charge is
 *                       due at {@code nowMicros + max(0, (j - levelBefore) / refill)}
 * @param nowMicros      the bucket's clock (Redis TIME) at the decision
 * @param ticketMicros   when granted is 0: microseconds from now until the event's turn in the line
 * @param leaseId        the lease of the {@code granted - need} extra units; 0 when there is none
 * @param leaseEndMicros when the bucket lets that lease go (0 when there is none)
 * @param lineEndMicros  when nothing was granted: the end of the line after the places taken
 *                       (the asker's and those beyond it), as stored; else 0
 */
public record Acquisition(
    int granted, double levelBefore, long nowMicros, long ticketMicros, long leaseId, long leaseEndMicros,
    long lineEndMicros) {
  public boolean isGranted() {
    return granted > 0;
  }
}
