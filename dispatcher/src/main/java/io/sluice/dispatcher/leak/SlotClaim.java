package io.sluice.dispatcher.leak;

/**
 * The answer to a {@link LeakyBucket#claim}: {@code granted} slots at
 * {@code firstSlotMicros + i * intervalMicros} for {@code i < granted}, all on the bucket's clock,
 * which read {@code nowMicros} when it decided. When none is granted, {@code firstSlotMicros} is
 * where the next slot would be (beyond the lookahead, or inside a Retry-After pause).
 *
 * @param retryAtMicros when none was granted: the earliest instant a claim can succeed; when some
 *                      were: the earliest instant a further claim can (if nobody else claims and
 *                      the rate stays as it is). Never before {@code nowMicros}.
 * @param rateFactor    the effective rate over the configured one, in (0, 1] (below 1 after 429s)
 */
public record SlotClaim(
    long nowMicros,
    int granted,
    long firstSlotMicros,
    long intervalMicros,
    long retryAtMicros,
    double rateFactor) {

  /** Slot {@code i} of this claim, on the bucket's clock. */
  public long slotMicros(int i) {
    if (i < 0 || i >= granted) {
      throw new IndexOutOfBoundsException("slot " + i + " of " + granted);
    }
    return firstSlotMicros + i * intervalMicros;
  }
}
