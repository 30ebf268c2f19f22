package io.sluice.topology.limiter;

/**
 * The answer of the bucket to one {@link AcquireRequest} (the return array of token_bucket.lua).
 * Modelled on Bucket4j's ConsumptionProbe: it says both what was granted and, when nothing was,
 * when to come back.
 *
 * @param granted      units charged; 0 when none were (then see {@code ticketMicros})
 * @param levelBefore  the level just before the charge, after refill; unit j of the charge is due
 *                     at {@code nowMicros + max(0, (j - levelBefore) / refill)}
 * @param nowMicros    the bucket's clock (Redis TIME) at the decision
 * @param ticketMicros when granted is 0: microseconds from now until the event's turn in the line
 */
public record Acquisition(int granted, double levelBefore, long nowMicros, long ticketMicros) {
  public boolean isGranted() {
    return granted > 0;
  }
}
