package io.sluice.schemas.offsets;

import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What of one partition a consumer has read and done, and the commit that records it when records
 * are done out of order: the relay's delay partitions (a record is done when it is released) and
 * the dispatcher's {@code sluice.ready} partitions (done when settled). Pure and single-threaded
 * (the consumer thread owns it).
 *
 * <p>A committed offset alone means "everything below has gone", so the commit is the lowest offset
 * read and not done (or the next offset to read, when every record read is done), and its metadata
 * lists the offsets above it that are done already ({@link #settledAhead}, written by
 * {@link SettledOffsetsCodec}). A consumer that takes the partition over reads from the committed
 * offset and skips what the metadata lists ({@link #read} answers false), so nothing is done twice
 * and nothing is lost. Until it has read past what it inherited, it carries it on in its own
 * commits, so a second crash forgets nothing the first commit knew.
 *
 * <pre>
 *   read:     10 11 12 13 14
 *   done:      x     x  x        -> commit 11 (the first not done), done ahead [12,14)
 *   settle 11                    -> commit 14
 * </pre>
 *
 * <p>What the metadata may hold is bounded by the broker's {@code offset.metadata.max.bytes};
 * {@link Overflow} says what the ledger does beyond it, one policy per role (the relay refuses, the
 * dispatcher truncates).
 *
 * <p>A run of done offsets spans the offsets of the records read, so it may cover offsets that hold
 * no record a read_committed reader sees (transaction markers, aborted or compacted records):
 * harmless, no record is there to skip. It never covers a record read and not done, and it does
 * not start or end on an offset that was not read: markers between two records held back do not
 * count as done, and so cost no run.
 */
public final class OffsetLedger {

  /** Records read and not yet dropped below the commit: offset to done (true) or waiting. */
  private final TreeMap<Long, Boolean> read = new TreeMap<>();
  /** Runs (start to end, inclusive) an earlier owner did, above what this one has read. */
  private final TreeMap<Long, Long> doneBefore = new TreeMap<>();
  private final Overflow overflow;
  /** The offset after the last record read, or the commit it started from; -1 when unknown. */
  private long next;
  /**
   * The maximal runs of done entries in {@link #read}: first offset to last (inclusive), kept as
   * records are read, settled, unsettled and forgotten, so that {@link #settledAhead} (each commit,
   * every 100 ms per partition in the dispatcher) visits the runs, not every record held: with a
   * backlog held in the lanes a partition keeps tens of thousands of records waiting, and walking
   * them all each commit took a third of the dispatcher's CPU (bench {@code dispatch}, issue 36).
   */
  private final TreeMap<Long, Long> runs = new TreeMap<>();
  /** Entries of {@link #read} not done. */
  private int waiting;

  /**
   * @param committed the partition's committed offset, or -1 when it has none or it is not known
   *                  (then nothing is {@linkplain #committable committable} before the first read)
   * @param inherited the offsets the last commit (or an earlier owner) said were done; those at or
   *                  below what is read are forgotten as reading passes them
   * @param overflow  what to do when the done offsets would not fit the commit's metadata
   */
  public OffsetLedger(long committed, SettledOffsets inherited, Overflow overflow) {
    this.next = committed < 0 ? -1 : committed;
    this.overflow = overflow;
    for (int i = 0; i < inherited.intervals(); i++) {
      doneBefore.put(inherited.from(i), inherited.to(i) - 1);
    }
  }

  /** True when {@code offset} is below the next one expected: read before, or below the commit. */
  public boolean readBefore(long offset) {
    return offset < next;
  }

  /**
   * A record read, in offset order. Returns true if it is to be done, false if an earlier owner of
   * the partition already did it (the caller skips it; the ledger counts it done).
   *
   * @throws IllegalArgumentException if {@code offset} is not above every offset read before
   */
  public boolean read(long offset) {
    if (offset < next) {
      throw new IllegalArgumentException("offset " + offset + " read after " + (next - 1) + ": offsets must increase");
    }
    next = offset + 1;
    Map.Entry<Long, Long> before = doneBefore.floorEntry(offset);
    boolean done = before != null && before.getValue() >= offset;
    doneBefore.headMap(offset, false).entrySet().removeIf(run -> run.getValue() < offset);
    Map.Entry<Long, Boolean> last = read.lastEntry();
    if (done) {
      if (last != null && last.getValue()) {
        runs.put(runs.lastKey(), offset); // the last record read was done: its run grows
      } else {
        runs.put(offset, offset);
      }
    }
    if (!done) {
      waiting++;
    }
    read.put(offset, done);
    return !done;
  }

  /**
   * True if settling {@code offset} now is allowed: always with {@link Overflow#truncate()}; with
   * {@link Overflow#refuseBeyond} when it keeps the runs above the commit within the bound.
   * Settling the lowest record waiting is always allowed: it only moves the commit.
   */
  public boolean maySettle(long offset) {
    Map.Entry<Long, Boolean> first = read.firstEntry();
    if (overflow.truncates() || first == null || first.getKey() == offset) {
      return true;
    }
    int after = runs.size() + 1 - (doneBelow(offset) ? 1 : 0) - (doneAbove(offset) ? 1 : 0);
    int ahead = after - (first.getValue() ? 1 : 0) + doneBefore.size();
    return ahead <= overflow.maxRuns() || leadingDone(offset);
  }

  /**
   * Marks a waiting record done. Returns false, changing nothing, when {@code offset} is not waiting
   * (never read, done already, or dropped below the commit).
   */
  public boolean settle(long offset) {
    if (!Boolean.FALSE.equals(read.get(offset))) {
      return false;
    }
    Map.Entry<Long, Boolean> below = read.lowerEntry(offset);
    Map.Entry<Long, Boolean> above = read.higherEntry(offset);
    boolean joinsBelow = below != null && below.getValue();
    boolean joinsAbove = above != null && above.getValue();
    long end = joinsAbove ? runs.remove(above.getKey()) : offset;
    if (joinsBelow) {
      runs.put(runs.floorKey(below.getKey()), end);
    } else {
      runs.put(offset, end);
    }
    read.put(offset, true);
    waiting--;
    return true;
  }

  /**
   * Undoes {@link #settle}: the transaction that did it was aborted. Only before
   * {@link #forgetCommitted} has dropped it.
   *
   * @throws IllegalArgumentException if {@code offset} is not a done record still kept
   */
  public void unsettle(long offset) {
    if (!Boolean.TRUE.equals(read.get(offset))) {
      throw new IllegalArgumentException("offset " + offset + " is not done");
    }
    Map.Entry<Long, Long> run = runs.floorEntry(offset);
    long start = run.getKey();
    long end = run.getValue();
    runs.remove(start);
    if (start < offset) {
      runs.put(start, read.lowerKey(offset));
    }
    if (end > offset) {
      runs.put(read.higherKey(offset), end);
    }
    read.put(offset, false);
    waiting++;
  }

  /**
   * Forgets the records done below the commit. The relay calls it once the transaction that did
   * them committed (until then {@link #unsettle} may bring them back); the dispatcher, which has no
   * transaction to abort, after each settlement.
   */
  public void forgetCommitted() {
    Map.Entry<Long, Boolean> first = read.firstEntry();
    if (first == null || !first.getValue()) {
      return;
    }
    while (!read.isEmpty() && read.firstEntry().getValue()) {
      read.pollFirstEntry();
    }
    runs.pollFirstEntry();
  }

  /**
   * The offset to commit: the lowest record read and not done; else the next to read, or past an
   * earlier owner's run of done offsets that starts there. Empty when nothing was read and the
   * commit it started from is not known.
   */
  public OptionalLong committable() {
    if (waiting > 0) {
      for (Map.Entry<Long, Boolean> e : read.entrySet()) {
        if (!e.getValue()) {
          return OptionalLong.of(e.getKey());
        }
      }
    }
    if (next < 0) {
      return OptionalLong.empty();
    }
    long commit = next;
    for (Map.Entry<Long, Long> run = doneBefore.floorEntry(commit);
        run != null && run.getValue() >= commit; run = doneBefore.floorEntry(commit)) {
      commit = run.getValue() + 1;
    }
    return OptionalLong.of(commit);
  }

  /**
   * The offsets above {@link #committable} that are done: the runs of records read and done, and
   * beyond the last read what was inherited. All that was inherited when the commit is not known.
   */
  public SettledOffsets settledAhead() {
    OptionalLong committable = committable();
    if (committable.isEmpty()) {
      return inheritedRuns();
    }
    long commit = committable.getAsLong();
    SettledOffsets.Builder out = new SettledOffsets.Builder();
    // No run straddles the commit: it is a record waiting, or at or past the last record read.
    for (Map.Entry<Long, Long> run : runs.tailMap(commit, false).entrySet()) {
      out.add(run.getKey(), run.getValue() + 1);
    }
    for (Map.Entry<Long, Long> run : doneBefore.entrySet()) {
      long from = Math.max(run.getKey(), Math.max(next, commit + 1));
      if (run.getValue() >= from) {
        out.add(from, run.getValue() + 1); // joins the last run when it ends just below next
      }
    }
    return out.build();
  }

  /**
   * Every offset known done, committed or not: all below {@link #committable}, and
   * {@link #settledAhead}. What this owner can still vouch for after it lost the partition without
   * committing (a broker restart that fenced it).
   */
  public SettledOffsets settled() {
    OptionalLong committable = committable();
    if (committable.isEmpty()) {
      return inheritedRuns();
    }
    return new SettledOffsets.Builder().add(0, committable.getAsLong()).build().union(settledAhead());
  }

  /** The commit's metadata in {@code format}, under this ledger's {@link Overflow} policy. */
  public String metadata(SettledOffsetsCodec.Format format, int maxChars) {
    OptionalLong committable = committable();
    if (committable.isEmpty()) {
      return "";
    }
    return SettledOffsetsCodec.encode(format, committable.getAsLong(), settledAhead(), maxChars, overflow);
  }

  /** Records read and kept (waiting, or done above the commit): what a read-ahead cap counts. */
  public int size() {
    return read.size();
  }

  /** Records read and not yet done. */
  public int waiting() {
    return waiting;
  }

  private SettledOffsets inheritedRuns() {
    SettledOffsets.Builder out = new SettledOffsets.Builder();
    doneBefore.forEach((start, end) -> out.add(start, end + 1));
    return out.build();
  }

  /** True if every record read below {@code offset} is done: it joins the commit's run. */
  private boolean leadingDone(long offset) {
    return !read.headMap(offset, false).containsValue(false);
  }

  private boolean doneBelow(long offset) {
    Map.Entry<Long, Boolean> below = read.lowerEntry(offset);
    return below != null && below.getValue();
  }

  private boolean doneAbove(long offset) {
    Map.Entry<Long, Boolean> above = read.higherEntry(offset);
    return above != null && above.getValue();
  }
}
