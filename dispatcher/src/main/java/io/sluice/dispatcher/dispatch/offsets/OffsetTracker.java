package io.sluice.dispatcher.dispatch.offsets;

import java.util.LinkedHashSet;
import java.util.OptionalLong;

/**
 * The offsets of one partition that the dispatcher has read and not yet settled, how far it may
 * commit, and which offsets beyond that are settled already. Pure and single-threaded (the
 * consumer thread owns it).
 *
 * <p>Records of a partition are read in offset order but settle in any order: a fast provider's
 * call finishes before a slow one's, an overflow deferral is acknowledged before a delivery. The
 * committed offset is a promise that everything below it is settled (delivered, deferred or
 * dead-lettered, with the produce acknowledged), so it may only move up to the <em>first</em>
 * unsettled offset. What is settled above it travels in the commit's metadata
 * ({@link #settledAhead()}, {@link SettledOffsetsCodec}), so that the next owner skips it.
 *
 * <pre>
 *   read:     10 11 12 13 14
 *   settled:   x     x  x        -> committable = 11 (11 is the first unsettled), settled ahead [12,14)
 *   settle 11                    -> committable = 14
 * </pre>
 *
 * <p>An owner that took the partition over starts from what the previous owner's last commit said
 * ({@code inherited}): a record read at an offset in it was settled before and is
 * {@linkplain #settledBefore skipped}. Until this owner has read past the inherited intervals it
 * carries them on in its own commits, so a second crash forgets nothing the first commit knew.
 */
public final class OffsetTracker {
  /** Read and not yet settled, in increasing order (offsets are tracked in increasing order). */
  private final LinkedHashSet<Long> unsettled = new LinkedHashSet<>();
  private final SettledOffsets inherited;
  /** One past the last offset read, or -1 when nothing was read. */
  private long next = -1;

  /** A partition whose last commit said nothing beyond its offset. */
  public OffsetTracker() {
    this(SettledOffsets.NONE);
  }

  /** A partition whose last commit said {@code inherited} offsets beyond it were settled. */
  public OffsetTracker(SettledOffsets inherited) {
    this.inherited = inherited;
  }

  /** True when the previous owner settled {@code offset}: its record must not be called again. */
  public boolean settledBefore(long offset) {
    return inherited.contains(offset);
  }

  /** True when {@code offset} is below the last one read: read before by this assignment. */
  public boolean readBefore(long offset) {
    return offset < next;
  }

  /** Records that {@code offset} was read; offsets must be tracked in increasing order. */
  public void track(long offset) {
    if (offset < next) {
      throw new IllegalArgumentException(
          "offset " + offset + " tracked after " + (next - 1) + ": offsets must increase");
    }
    unsettled.add(offset);
    next = offset + 1;
  }

  /** Marks {@code offset} settled. Unknown offsets (already committed, or never read) are ignored. */
  public void settle(long offset) {
    unsettled.remove(offset);
  }

  /**
   * The offset to commit: the first unsettled one, or one past the last read when all are settled;
   * empty when nothing was read yet.
   */
  public OptionalLong committable() {
    if (!unsettled.isEmpty()) {
      return OptionalLong.of(unsettled.iterator().next());
    }
    return next < 0 ? OptionalLong.empty() : OptionalLong.of(next);
  }

  /**
   * The offsets above {@link #committable()} that are settled: between the unsettled ones, up to
   * the last read, and beyond that what was inherited. Offsets that held no record (transaction
   * markers) fall inside the intervals; nothing is ever delivered from them.
   */
  public SettledOffsets settledAhead() {
    OptionalLong committable = committable();
    if (committable.isEmpty()) {
      return inherited;
    }
    SettledOffsets.Builder b = new SettledOffsets.Builder();
    long cursor = committable.getAsLong();
    for (long u : unsettled) {
      b.add(cursor, u);
      cursor = u + 1;
    }
    b.add(cursor, next);
    SettledOffsets beyond = inherited.from(Math.max(next, committable.getAsLong()));
    for (int i = 0; i < beyond.intervals(); i++) {
      b.add(beyond.from(i), beyond.to(i));
    }
    return b.build();
  }

  /**
   * Every offset known settled, committed or not: all below {@link #committable()}, and
   * {@link #settledAhead()}. What this owner can still vouch for after it lost the partition
   * without committing (a broker restart that fenced it): settled means the settlement's produce
   * was acknowledged, so such a record need not be called again, whoever owns the partition next.
   */
  public SettledOffsets settled() {
    OptionalLong committable = committable();
    if (committable.isEmpty()) {
      return inherited;
    }
    return new SettledOffsets.Builder().add(0, committable.getAsLong()).build().union(settledAhead());
  }

  /** Records read and not yet settled. */
  public int unsettled() {
    return unsettled.size();
  }
}
