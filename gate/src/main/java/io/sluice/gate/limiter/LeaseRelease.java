package io.sluice.gate.limiter;

/**
 * A lease its holder is done with, sent along with its next request to the same bucket: the
 * bucket takes back the units never handed out that it had held, and those reserved ones still
 * ahead of their due time on its clock (see {@link Lease}), and stops holding the lease against
 * its cap. The bucket acts only if it still holds exactly this lease (same id, deadline
 * and units); a lease that already expired, or a key that expired and was made anew, ignores it.
 *
 * @param id             the lease's id (from {@link Acquisition#leaseId()})
 * @param deadlineMicros its deadline (from {@link Acquisition#leaseEndMicros()})
 * @param units          its units (granted beyond the asker's need)
 * @param used           how many of them were handed out, 0..units
 */
public record LeaseRelease(long id, long deadlineMicros, int units, int used) {
  public LeaseRelease {
    if (id < 1 || units < 1 || used < 0 || used > units) {
      throw new IllegalArgumentException("a lease release needs id >= 1 and 0 <= used <= units >= 1: " + this);
    }
  }

  /** The form the script reads: "id deadline units used". */
  String encode() {
    return id + " " + deadlineMicros + " " + units + " " + used;
  }
}
