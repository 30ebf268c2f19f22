package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * What a due slot does with the head of its lane's queue: waits for its instant, goes unused
 * (wasted, with the reason the listener counts), takes the head out because its deadline passed,
 * or calls it. A leaky bucket banks no unused slot, so a wasted slot is gone.
 *
 * <p>The questions are asked in a fixed order, and each only when every one before it let the slot
 * through: the pacer's verdict, an empty queue, a head dearer than the slot reserved, whether the
 * lane may call ({@code mayCall} may hand out an endpoint's one probe, so it is asked only of a slot
 * that would otherwise call), and last the head's deadline.
 */
sealed interface SlotUse {
  /** Fires again at {@code atNanos}: the timer ran it early, or too close to the last hand-off. */
  record WaitUntil(long atNanos) implements SlotUse {}

  /** Goes unused, for {@code reason} ({@code paused}, {@code late}, {@code empty}, ...). */
  record Wasted(String reason) implements SlotUse {}

  /** Goes unused; the head's deadline passed, so it leaves the queue and is never called. */
  record Expire() implements SlotUse {
    static final String REASON = "expired";
  }

  /** The reason of a slot unused because the dispatcher's settlements go unacknowledged. */
  String UNWRITTEN = "unwritten";

  /** Calls the head. */
  record Call() implements SlotUse {}

  /**
   * @param pacer        the pacer's verdict on the slot now ({@link LaneSchedule#slotDue})
   * @param held         the lane is closed or paused now (a late or dropped slot is then "paused")
   * @param head         the entry the fair queue would serve next
   * @param maxCost      the most the slot reserved ({@code Long.MAX_VALUE} when cost is not counted)
   * @param mayCall      whether a call may start now; asked last but one
   * @param pastDeadline whether the head may no longer be called; asked last
   */
  static SlotUse of(SlotPacer.Decision pacer, boolean held, Optional<DispatchEntry> head,
      long maxCost, BooleanSupplier mayCall, Predicate<DispatchEntry> pastDeadline) {
    return of(pacer, held, head, maxCost, () -> true, mayCall, pastDeadline);
  }

  /**
   * As above, {@code callsGo} asked before {@code mayCall}: a slot that would call while the
   * dispatcher's calls wait ({@code CallsWait}: its settlements unacknowledged) goes unused,
   * {@link #UNWRITTEN}, and no endpoint's probe is spent on it.
   */
  static SlotUse of(SlotPacer.Decision pacer, boolean held, Optional<DispatchEntry> head,
      long maxCost, BooleanSupplier callsGo, BooleanSupplier mayCall,
      Predicate<DispatchEntry> pastDeadline) {
    if (pacer instanceof SlotPacer.Decision.WaitUntil w) {
      return new WaitUntil(w.atNanos());
    }
    if (!(pacer instanceof SlotPacer.Decision.Fire)) {
      return new Wasted(held ? "paused" : "late");
    }
    if (head.isEmpty()) {
      return new Wasted("empty");
    }
    if (head.get().event().cost() > maxCost) {
      return new Wasted("dearer");
    }
    if (!callsGo.getAsBoolean()) {
      return new Wasted(UNWRITTEN);
    }
    if (!mayCall.getAsBoolean()) {
      return new Wasted("disabled");
    }
    if (pastDeadline.test(head.get())) {
      return new Expire();
    }
    return new Call();
  }
}
