package io.sluice.gate.limiter;

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
 * @param oldRate        the bucket's old line at the decision: reservations sold before a raise,
 *                       running at this rate until {@code oldEndMicros}, which the bucket's
 *                       refill leaves room for ({@link Refill}); 0 when there is none
 * @param oldEndMicros   when that old line ends; 0 when there is none
 */
public record Acquisition(
    int granted, double levelBefore, long nowMicros, long ticketMicros, long leaseId, long leaseEndMicros,
    long lineEndMicros, double oldRate, long oldEndMicros) {
  /** An answer from a bucket with no old line. */
  public Acquisition(int granted, double levelBefore, long nowMicros, long ticketMicros, long leaseId,
      long leaseEndMicros, long lineEndMicros) {
    this(granted, levelBefore, nowMicros, ticketMicros, leaseId, leaseEndMicros, lineEndMicros, 0, 0);
  }

  public boolean isGranted() {
    return granted > 0;
  }

  /** The bucket's refill at the decision, for a bucket of {@code spec}. */
  public Refill refill(BucketSpec spec) {
    return Refill.of(spec, oldRate, oldEndMicros);
  }

  /**
   * When unit {@code j} (1-based) of the charge is due, rounded up to a whole microsecond: at
   * once for a unit the bucket held, else when the refill (beside the old line, if any) reaches it.
   */
  public long dueOfUnit(int j, BucketSpec spec) {
    return nowMicros + (long) Math.ceil(Math.max(0, refill(spec).waitMicros(nowMicros, j - levelBefore)));
  }
}
