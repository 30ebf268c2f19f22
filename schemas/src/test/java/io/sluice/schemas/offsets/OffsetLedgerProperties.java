package io.sluice.schemas.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * The invariants the docs state for the offset ledger and its commit metadata, over generated
 * histories (jqwik shrinks a failure to the smallest history that shows it):
 *
 * <ul>
 *   <li>the codec gives back exactly what it wrote, in every format;
 *   <li>metadata cut to fit keeps a prefix of what was done: it never claims an offset done that
 *       was not;
 *   <li>the ledger never commits past a record not done (a gap), never skips a record no owner did,
 *       and with {@link Overflow#refuseBeyond refuse} never has a record done twice, however the
 *       partition changes hands.
 * </ul>
 */
class OffsetLedgerProperties {

  @Property(tries = 300, seed = "20261129")
  void codecRoundTripsInEveryFormat(@ForAll @LongRange(min = 0, max = 1L << 50) long committed,
      @ForAll @Size(max = 40) List<@IntRange(min = 1, max = 1_000_000) Integer> gaps,
      @ForAll SettledOffsetsCodec.Format format) {
    SettledOffsets done = intervals(committed, gaps);
    String metadata = SettledOffsetsCodec.encode(format, committed, done, 1 << 20, Overflow.refuseBeyond(1));
    assertTrue(done.intervals() == 0 ? metadata.isEmpty() : metadata.startsWith(format.prefix()), metadata);
    assertEquals(done, SettledOffsetsCodec.decode(committed, metadata));
  }

  @Property(tries = 300, seed = "20261129")
  void truncatedMetadataIsAPrefixOfWhatWasDone(@ForAll @LongRange(min = 0, max = 1L << 50) long committed,
      @ForAll @Size(max = 300) List<@IntRange(min = 1, max = 300) Integer> gaps,
      @ForAll @IntRange(min = 0, max = 400) int maxChars, @ForAll SettledOffsetsCodec.Format format) {
    SettledOffsets done = intervals(committed, gaps);
    String metadata = SettledOffsetsCodec.encode(format, committed, done, maxChars, Overflow.truncate());
    assertTrue(metadata.length() <= maxChars, metadata.length() + " > " + maxChars);
    SettledOffsets kept = SettledOffsetsCodec.decode(committed, metadata);
    assertEquals(done.first(kept.intervals()), kept, "a prefix of what was done, nothing else");
  }

  @Example
  void refuseNeverCutsTheMetadata() {
    SettledOffsets done = intervals(0, List.of(1, 1, 1, 1));
    assertEquals(done, SettledOffsetsCodec.decode(0,
        SettledOffsetsCodec.encode(SettledOffsetsCodec.Format.RUNS_V1, 0, done, 4096, Overflow.refuseBeyond(1))));
    try {
      SettledOffsetsCodec.encode(SettledOffsetsCodec.Format.RUNS_V1, 0, done, 20, Overflow.refuseBeyond(1));
    } catch (IllegalStateException expected) {
      return;
    }
    throw new AssertionError("four runs in 20 characters: refuse must throw, not cut");
  }

  /** The relay's ledger: refuse beyond a few runs, the runs format, aborted transactions. */
  @Property(tries = 200, seed = "20261129")
  void refusingLedgerDoesEachRecordExactlyOnce(@ForAll @Size(min = 1, max = 60) List<@IntRange(min = 1, max = 3) Integer> gaps,
      @ForAll @Size(max = 200) List<@IntRange(min = 0, max = 100_000) Integer> moves,
      @ForAll @IntRange(min = 1, max = 4) int maxRuns) {
    new History(gaps, Overflow.refuseBeyond(maxRuns), SettledOffsetsCodec.Format.RUNS_V1, 4096).run(moves);
  }

  /** The dispatcher's ledger: truncate, the zlib format, a metadata budget small enough to cut. */
  @Property(tries = 200, seed = "20261129")
  void truncatingLedgerNeverSkipsARecordNoOwnerDid(@ForAll @Size(min = 1, max = 60) List<@IntRange(min = 1, max = 3) Integer> gaps,
      @ForAll @Size(max = 200) List<@IntRange(min = 0, max = 100_000) Integer> moves,
      @ForAll @IntRange(min = 0, max = 40) int maxChars) {
    new History(gaps, Overflow.truncate(), SettledOffsetsCodec.Format.ZLIB_V1, maxChars).run(moves);
  }

  /**
   * One partition's records (offsets with gaps: transaction markers between them) handled by a
   * succession of owners, each starting from its predecessor's commit and metadata. A move reads
   * the next record, settles a waiting one, settles one and aborts it, or hands the partition over.
   */
  private static final class History {
    private final List<Long> records = new ArrayList<>();
    private final Overflow overflow;
    private final SettledOffsetsCodec.Format format;
    private final int maxChars;
    /** Offsets done by some owner (and not aborted): the truth the ledgers are checked against. */
    private final Set<Long> done = new HashSet<>();
    private OffsetLedger ledger;
    /** Index in {@link #records} of the next record the current owner reads. */
    private int position;
    private final TreeSet<Long> waiting = new TreeSet<>();

    History(List<Integer> gaps, Overflow overflow, SettledOffsetsCodec.Format format, int maxChars) {
      long offset = 0;
      for (int gap : gaps) {
        offset += gap;
        records.add(offset);
      }
      this.overflow = overflow;
      this.format = format;
      this.maxChars = maxChars;
      this.ledger = new OffsetLedger(-1, SettledOffsets.NONE, overflow);
    }

    void run(List<Integer> moves) {
      for (int move : moves) {
        switch (move % 4) {
          case 0 -> read();
          case 1 -> settle(move / 4, false);
          case 2 -> settle(move / 4, true);
          default -> handOver();
        }
        checkCommit();
      }
      handOver();
      while (position < records.size()) {
        read();
      }
      while (!waiting.isEmpty()) {
        long first = waiting.first();
        assertTrue(ledger.maySettle(first), "the first record waiting may always be done");
        settle(first);
      }
      checkCommit();
      assertEquals(Set.copyOf(records), done, "every record done in the end");
    }

    private void read() {
      if (position == records.size()) {
        return;
      }
      long offset = records.get(position++);
      if (ledger.read(offset)) {
        if (!overflow.truncates()) {
          assertFalse(done.contains(offset), "offset " + offset + " would be done twice");
        }
        waiting.add(offset);
      } else {
        assertTrue(done.contains(offset), "offset " + offset + " skipped, but no owner did it");
      }
    }

    private void settle(int pick, boolean abort) {
      if (waiting.isEmpty()) {
        return;
      }
      long offset = new ArrayList<>(waiting).get(pick % waiting.size());
      if (!ledger.maySettle(offset)) {
        return;
      }
      if (abort) {
        assertTrue(ledger.settle(offset));
        ledger.unsettle(offset);
        return;
      }
      settle(offset);
    }

    private void settle(long offset) {
      assertTrue(ledger.settle(offset));
      assertFalse(ledger.settle(offset), "a record is done once");
      waiting.remove(offset);
      done.add(offset);
      ledger.forgetCommitted();
    }

    private void handOver() {
      OptionalLong commit = ledger.committable();
      if (commit.isEmpty()) {
        return; // nothing read yet: the next owner starts where this one did
      }
      String metadata = ledger.metadata(format, maxChars);
      assertTrue(metadata.length() <= maxChars);
      long c = commit.getAsLong();
      ledger = new OffsetLedger(c, SettledOffsetsCodec.decode(c, metadata), overflow);
      waiting.clear();
      position = 0;
      while (position < records.size() && records.get(position) < c) {
        position++;
      }
    }

    /** Never commits past a record not done; never calls a record waiting done. */
    private void checkCommit() {
      OptionalLong commit = ledger.committable();
      if (commit.isEmpty()) {
        return;
      }
      for (long offset : records) {
        if (offset < commit.getAsLong()) {
          assertTrue(done.contains(offset), "commit " + commit.getAsLong() + " passes " + offset + ", not done");
        }
      }
      SettledOffsets ahead = ledger.settledAhead();
      for (long offset : records) {
        if (ahead.contains(offset)) {
          assertTrue(done.contains(offset), offset + " listed done, but it is not");
        }
      }
      if (!overflow.truncates()) {
        assertTrue(ahead.intervals() <= overflow.maxRuns(), "runs " + ahead.intervals());
      }
    }
  }

  /** Intervals above {@code committed}: each gap alternately a hole (at least one) and a length. */
  private static SettledOffsets intervals(long committed, List<Integer> gaps) {
    SettledOffsets.Builder b = new SettledOffsets.Builder();
    long at = committed + 1;
    for (int i = 0; i + 1 < gaps.size(); i += 2) {
      long from = at + gaps.get(i) - 1 + (i == 0 ? 0 : 1);
      long to = from + gaps.get(i + 1);
      b.add(from, to);
      at = to;
    }
    return b.build();
  }
}
