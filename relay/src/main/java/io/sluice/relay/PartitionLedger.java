package io.sluice.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What of one delay partition the relay has read and released, and the commit that records it
 * when records leave out of order. Pure.
 *
 * <p>The relay releases each record when it falls due, not when every record before it has gone.
 * A committed offset alone cannot say that: it means "everything below has gone". So the commit
 * is the lowest offset read and not yet released (or the next offset to read, when every record
 * read has gone), and its metadata lists the offsets above it that were already released, as runs
 * ({@link #metadata}). A relay that takes the partition over reads from the committed offset and
 * skips what the metadata lists ({@link #read} answers false), so nothing is released twice and
 * nothing is lost. The offsets and their metadata are sent in the same transaction as the records
 * they cover, so they always agree.
 *
 * <p>The metadata must fit the broker's {@code offset.metadata.max.bytes} (4096 by default), so the
 * released offsets above the commit may form at most {@link #MAX_RUNS} runs (each at most two
 * base-36 longs and two separators, 28 characters). {@link #mayRelease} refuses a record that would
 * start one more; it leaves once the records before it have gone and its run joins the commit.
 * Late, never twice. In practice the released records behind a head that is not yet due form one
 * run per gap, a handful.
 *
 * <p>A run spans the offsets of the records read, so it may cover offsets that hold no record a
 * read_committed reader sees (transaction markers, aborted records): harmless, no record is
 * there to skip. It never covers a record read and not released.
 */
final class PartitionLedger {
  /** Prefix of this ledger's commit metadata; metadata without it lists nothing. */
  static final String FORMAT = "sluice-relay-v1:";
  /** Runs of released offsets above the commit at most: 100 × 28 characters fit 4096 bytes. */
  static final int MAX_RUNS = 100;

  /** Records read and not yet dropped below the commit: offset to released (true) or waiting. */
  private final TreeMap<Long, Boolean> read = new TreeMap<>();
  /** Runs (start to end, inclusive) an earlier owner released, above what this one has read. */
  private final TreeMap<Long, Long> releasedBefore;
  /** The offset after the last record read: the commit when every record read has gone. */
  private long next;
  /** Maximal runs of released entries in {@link #read}. */
  private int runs;

  /**
   * @param committed the partition's committed offset, or -1 if it has none (the first record read
   *                  sets where the ledger starts)
   * @param metadata  that commit's metadata (null or foreign: nothing released above it)
   * @throws IllegalArgumentException if the metadata has this ledger's format but cannot be read
   */
  PartitionLedger(long committed, String metadata) {
    this.next = Math.max(committed, 0);
    this.releasedBefore = committed < 0 ? new TreeMap<>() : decode(committed, metadata);
  }

  /** True when {@code offset} is below the next one expected: read before, or below the commit. */
  boolean readBefore(long offset) {
    return offset < next;
  }

  /**
   * A record read, in offset order. Returns true if it is to be released, false if an earlier
   * owner of the partition already released it (the caller skips it).
   */
  boolean read(long offset) {
    if (offset < next) {
      throw new IllegalArgumentException("offset " + offset + " read after " + (next - 1));
    }
    next = offset + 1;
    Map.Entry<Long, Long> before = releasedBefore.floorEntry(offset);
    boolean done = before != null && before.getValue() >= offset;
    releasedBefore.headMap(offset, false).entrySet().removeIf(run -> run.getValue() < offset);
    Map.Entry<Long, Boolean> last = read.lastEntry();
    if (done && (last == null || !last.getValue())) {
      runs++;
    }
    read.put(offset, done);
    return !done;
  }

  /**
   * True if releasing {@code offset} now keeps the commit metadata within {@link #MAX_RUNS} runs.
   * Releasing the lowest record waiting is always allowed: it only moves the commit.
   */
  boolean mayRelease(long offset) {
    Map.Entry<Long, Boolean> first = read.firstEntry();
    if (first == null || first.getKey() == offset) {
      return true;
    }
    int after = runs + 1 - (releasedBelow(offset) ? 1 : 0) - (releasedAbove(offset) ? 1 : 0);
    int ahead = after - (first.getValue() ? 1 : 0) + releasedBefore.size();
    return ahead <= MAX_RUNS || leadingReleased(offset);
  }

  /** Marks a waiting record released (in the open transaction: see {@link #unrelease}). */
  void release(long offset) {
    if (!Boolean.FALSE.equals(read.get(offset))) {
      throw new IllegalArgumentException("offset " + offset + " is not waiting");
    }
    runs += 1 - (releasedBelow(offset) ? 1 : 0) - (releasedAbove(offset) ? 1 : 0);
    read.put(offset, true);
  }

  /** Undoes {@link #release}: the transaction that released it was aborted. */
  void unrelease(long offset) {
    if (!Boolean.TRUE.equals(read.get(offset))) {
      throw new IllegalArgumentException("offset " + offset + " is not released");
    }
    read.put(offset, false);
    runs -= 1 - (releasedBelow(offset) ? 1 : 0) - (releasedAbove(offset) ? 1 : 0);
  }

  /** The transaction releasing the records committed: forgets those below the new commit. */
  void committed() {
    Map.Entry<Long, Boolean> first = read.firstEntry();
    if (first == null || !first.getValue()) {
      return;
    }
    while (!read.isEmpty() && read.firstEntry().getValue()) {
      read.pollFirstEntry();
    }
    runs--;
  }

  /**
   * The offset to commit: the lowest record read and not released; else the next to read, or past
   * an earlier owner's run of released offsets that starts there.
   */
  long commitOffset() {
    for (Map.Entry<Long, Boolean> e : read.entrySet()) {
      if (!e.getValue()) {
        return e.getKey();
      }
    }
    long commit = next;
    for (Map.Entry<Long, Long> run = releasedBefore.floorEntry(commit);
        run != null && run.getValue() >= commit; run = releasedBefore.floorEntry(commit)) {
      commit = run.getValue() + 1;
    }
    return commit;
  }

  /**
   * The commit's metadata: the runs of offsets released above {@link #commitOffset}, as
   * {@code sluice-relay-v1:gap.length,...} in base 36 (gap from the previous run's end, or from the
   * commit; length past the run's first offset); empty when there are none.
   */
  String metadata() {
    long commit = commitOffset();
    List<long[]> runs = new ArrayList<>();
    for (Map.Entry<Long, Boolean> e : read.tailMap(commit, false).entrySet()) {
      if (e.getValue()) {
        extend(runs, e.getKey(), e.getKey(), read.lowerKey(e.getKey()));
      }
    }
    for (Map.Entry<Long, Long> run : releasedBefore.entrySet()) {
      long from = Math.max(run.getKey(), next);
      if (from > commit && run.getValue() >= from) {
        extend(runs, from, run.getValue(), from == next ? Long.valueOf(next - 1) : null);
      }
    }
    if (runs.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder(FORMAT);
    long previous = commit;
    for (long[] run : runs) {
      if (previous != commit) {
        out.append(',');
      }
      out.append(Long.toString(run[0] - previous, 36)).append('.').append(Long.toString(run[1] - run[0], 36));
      previous = run[1];
    }
    return out.toString();
  }

  /**
   * Adds the released offsets {@code start..end} to {@code runs}, joining the last run when it
   * ends at {@code joinsAfter} (the record read just before, or the last offset read).
   */
  private static void extend(List<long[]> runs, long start, long end, Long joinsAfter) {
    long[] last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
    if (last != null && joinsAfter != null && last[1] == joinsAfter) {
      last[1] = end;
    } else {
      runs.add(new long[] {start, end});
    }
  }

  /** Records read and kept (waiting, or released above the commit): what the read-ahead cap counts. */
  int size() {
    return read.size();
  }

  /**
   * The runs of released offsets a commit's metadata lists, each above {@code committed}.
   *
   * @throws IllegalArgumentException if the metadata has this format but cannot be read
   */
  static TreeMap<Long, Long> decode(long committed, String metadata) {
    TreeMap<Long, Long> runs = new TreeMap<>();
    if (metadata == null || !metadata.startsWith(FORMAT) || metadata.length() == FORMAT.length()) {
      return runs;
    }
    long previous = committed;
    try {
      for (String run : metadata.substring(FORMAT.length()).split(",")) {
        int dot = run.indexOf('.');
        long start = previous + Long.parseLong(run.substring(0, dot), 36);
        long end = start + Long.parseLong(run.substring(dot + 1), 36);
        if (start <= previous || end < start) {
          throw new IllegalArgumentException("runs out of order");
        }
        runs.put(start, end);
        previous = end;
      }
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("unreadable relay commit metadata '" + metadata + "': " + e.getMessage(), e);
    }
    return runs;
  }

  /** True if every record read below {@code offset} is released: it joins the commit's run. */
  private boolean leadingReleased(long offset) {
    return !read.headMap(offset, false).containsValue(false);
  }

  private boolean releasedBelow(long offset) {
    Map.Entry<Long, Boolean> below = read.lowerEntry(offset);
    return below != null && below.getValue();
  }

  private boolean releasedAbove(long offset) {
    Map.Entry<Long, Boolean> above = read.higherEntry(offset);
    return above != null && above.getValue();
  }
}
