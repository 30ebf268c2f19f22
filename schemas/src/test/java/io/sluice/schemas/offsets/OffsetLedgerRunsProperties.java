package io.sluice.schemas.offsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The ledger keeps its runs of done records as it goes (so a commit visits the runs, not every
 * record held); what {@link OffsetLedger#settledAhead} says must stay what a walk over every
 * record read says: the runs of done records above the first one waiting. Each generated history
 * reads, settles, unsettles and forgets in any order, and after every step the ledger is held to
 * that walk over a plain model of the records read.
 */
class OffsetLedgerRunsProperties {

  @Property(tries = 500, seed = "20261129")
  void settledAheadIsTheWalkOverEveryRecordHeld(
      @ForAll @Size(min = 1, max = 120) List<@IntRange(min = 0, max = 99) Integer> moves) {
    OffsetLedger ledger = new OffsetLedger(0, SettledOffsets.NONE, Overflow.truncate());
    TreeMap<Long, Boolean> model = new TreeMap<>(); // offset read and kept -> done
    long next = 0;
    for (int move : moves) {
      List<Long> waiting = new ArrayList<>();
      List<Long> done = new ArrayList<>();
      model.forEach((offset, isDone) -> (isDone ? done : waiting).add(offset));
      if (move < 35 || model.isEmpty()) {
        next += 1 + move % 3; // offsets with gaps, as transaction markers leave
        ledger.read(next);
        model.put(next, false);
      } else if (move < 75 && !waiting.isEmpty()) {
        long offset = waiting.get(move % waiting.size());
        ledger.settle(offset);
        model.put(offset, true);
      } else if (move < 90 && !done.isEmpty()) {
        long offset = done.get(move % done.size());
        ledger.unsettle(offset);
        model.put(offset, false);
      } else {
        ledger.forgetCommitted();
        while (!model.isEmpty() && model.firstEntry().getValue()) {
          model.pollFirstEntry();
        }
      }
      assertEquals(walk(model, next), bounds(ledger.settledAhead()), "after moves " + moves);
    }
  }

  /** The runs of done records above the first one waiting, as [from, to) bounds. */
  private static List<Long> walk(TreeMap<Long, Boolean> model, long last) {
    long commit = model.entrySet().stream().filter(e -> !e.getValue()).map(Map.Entry::getKey)
        .findFirst().orElse(last + 1);
    List<Long> out = new ArrayList<>();
    Long open = null;
    Long end = null;
    for (Map.Entry<Long, Boolean> e : model.tailMap(commit, false).entrySet()) {
      if (e.getValue()) {
        open = open == null ? e.getKey() : open;
        end = e.getKey();
      } else if (open != null) {
        out.add(open);
        out.add(end + 1);
        open = null;
      }
    }
    if (open != null) {
      out.add(open);
      out.add(end + 1);
    }
    return out;
  }

  private static List<Long> bounds(SettledOffsets s) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < s.intervals(); i++) {
      out.add(s.from(i));
      out.add(s.to(i));
    }
    return out;
  }
}
