package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What the settlement of a call asks of the lane that made it. The lane carries its orders out
 * itself ({@link ProviderLane}), so a settlement never calls back into the lane that handed it a
 * result: the settlement decides, the lane acts on its own state ({@link #carryOut}).
 */
public sealed interface LaneOrder {
  /**
   * The provider said "too many": no call of the lane starts within {@code millis}, and the
   * shared leak pauses and slows for every instance ({@link ProviderLane#throttle}).
   *
   * @param claimedAtMicros when the leak granted the answered call's slot (0: not a call's answer,
   *                        a learned hold): a 429 to a call spaced at the old rate cuts no more
   */
  record Throttle(long millis, long claimedAtMicros) implements LaneOrder {}

  /**
   * No call of the lane starts within {@code millis}, at this instance only, the rate untouched
   * (its credential is missing; its endpoint is disabled until a probe) ({@link ProviderLane#hold}).
   */
  record Hold(long millis) implements LaneOrder {}

  /**
   * Every queued event leaves the lane, to {@code to} (an endpoint disabled under
   * {@code whileDisabled: dead_letter}: its events are dead-lettered, not called).
   */
  record DropQueued(Consumer<DispatchEntry> to) implements LaneOrder {}

  /** What carries orders out: a lane, or a test's record of what it was asked. */
  interface Target {
    void throttle(long millis, long claimedAtMicros);

    void hold(long millis);

    /** Takes the queued events {@code which} matches out of the lane. */
    List<DispatchEntry> drop(Predicate<DispatchEntry> which);
  }

  /** Carries {@code orders} out on {@code target}, in their order. */
  static void carryOut(List<LaneOrder> orders, Target target) {
    for (LaneOrder order : orders) {
      if (order instanceof Throttle t) {
        target.throttle(t.millis(), t.claimedAtMicros());
      } else if (order instanceof Hold h) {
        target.hold(h.millis());
      } else if (order instanceof DropQueued d) {
        target.drop(e -> true).forEach(d.to());
      }
    }
  }
}
