package io.sluice.schemas.offsets;

/**
 * What an {@link OffsetLedger} does when the offsets done above its commit would not fit the
 * commit's metadata (the broker's {@code offset.metadata.max.bytes}, 4096 by default). Each role
 * picks one, explicitly:
 *
 * <ul>
 *   <li>{@link #refuseBeyond refuse}: the relay. Releasing a record that would list more than
 *       {@code maxRuns} runs is refused ({@link OffsetLedger#maySettle} answers false); the record
 *       leaves once the records before it have gone and its run joins the commit. Late, never
 *       twice: the metadata always lists everything done above the commit, and a commit whose
 *       metadata does not fit is an error ({@link SettledOffsetsCodec#encode} throws).
 *   <li>{@link #truncate() truncate}: the dispatcher. Settling is never held back (a held record
 *       would hold a provider's call); the metadata keeps the longest prefix of the runs that fits,
 *       and the next owner calls the rest again. Duplicates, never losses.
 * </ul>
 *
 * @param truncates true to keep a prefix that fits, false to refuse what would not fit
 * @param maxRuns  with refuse, the runs of done offsets above the commit at most; unused with truncate
 */
public record Overflow(boolean truncates, int maxRuns) {

  public Overflow {
    if (!truncates && maxRuns < 1) {
      throw new IllegalArgumentException("refuse needs at least one run, got " + maxRuns);
    }
  }

  /** Never holds a settlement back; the metadata keeps the longest prefix that fits. */
  public static Overflow truncate() {
    return new Overflow(true, Integer.MAX_VALUE);
  }

  /** Refuses a settlement that would list more than {@code maxRuns} runs above the commit. */
  public static Overflow refuseBeyond(int maxRuns) {
    return new Overflow(false, maxRuns);
  }
}
