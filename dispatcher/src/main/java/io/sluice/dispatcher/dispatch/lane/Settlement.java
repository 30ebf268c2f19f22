package io.sluice.dispatcher.dispatch.lane;

import java.util.List;
import java.util.function.Supplier;

/**
 * A call's result, judged: what its lane must do before the event's record is written (a 429's
 * pause: no call of the lane may start meanwhile), then the write itself, which answers with what
 * learning from the answer asks of the lane. Made by a {@link ResultHandler}; the
 * lane runs it on the thread the call completed on.
 */
public interface Settlement {
  /** Orders the lane carries out before {@link #complete()}. */
  List<LaneOrder> first();

  /**
   * Writes the record that settles the event, tells the listener, and learns from the answer;
   * returns the orders that learning gives (a provider announcing nothing remains: a hold).
   */
  List<LaneOrder> complete();

  /** A settlement that asks nothing of the lane and writes nothing (tests). */
  Settlement NONE = of(List.of(), List::of);

  /** A settlement giving {@code first}, then running {@code complete}. */
  static Settlement of(List<LaneOrder> first, Supplier<List<LaneOrder>> complete) {
    List<LaneOrder> before = List.copyOf(first);
    return new Settlement() {
      @Override
      public List<LaneOrder> first() {
        return before;
      }

      @Override
      public List<LaneOrder> complete() {
        return complete.get();
      }
    };
  }
}
