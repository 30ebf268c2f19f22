package io.sluice.dispatcher.dispatch.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What a due slot does with the head of its lane's queue, question by question, in order. */
class SlotUseTest {
  private static final SlotPacer.Decision FIRE = new SlotPacer.Decision.Fire();
  private static final SlotPacer.Decision DROP = new SlotPacer.Decision.Drop(5_000_000);
  private static final BooleanSupplier MAY_CALL = () -> true;
  private static final Predicate<DispatchEntry> ON_TIME = e -> false;
  private static final Optional<DispatchEntry> HEAD_OF_COST_2 = Optional.of(LaneEntries.entry("e", 2));

  @Test
  @DisplayName("a slot the timer ran early waits for its instant, whatever the queue holds")
  void shouldWaitWhenThePacerSaysWait() {
    assertEquals(new SlotUse.WaitUntil(42),
        SlotUse.of(new SlotPacer.Decision.WaitUntil(42), false, HEAD_OF_COST_2, 2, MAY_CALL,
            ON_TIME));
  }

  @Test
  @DisplayName("a slot the pacer drops is 'paused' while the lane is held, 'late' otherwise")
  void shouldNameADroppedSlotByWhetherTheLaneIsHeld() {
    assertEquals(new SlotUse.Wasted("paused"),
        SlotUse.of(DROP, true, HEAD_OF_COST_2, 2, MAY_CALL, ON_TIME));
    assertEquals(new SlotUse.Wasted("late"),
        SlotUse.of(DROP, false, HEAD_OF_COST_2, 2, MAY_CALL, ON_TIME));
  }

  @Test
  @DisplayName("a slot with nothing queued is wasted ('empty'): a leaky bucket banks no slot")
  void shouldWasteASlotWithNothingToSend() {
    assertEquals(new SlotUse.Wasted("empty"),
        SlotUse.of(FIRE, false, Optional.empty(), 2, MAY_CALL, ON_TIME));
  }

  @Test
  @DisplayName("a head dearer than the slot reserved stays queued and the slot is wasted ('dearer')")
  void shouldNotSendAHeadDearerThanTheSlotReserved() {
    assertEquals(new SlotUse.Wasted("dearer"),
        SlotUse.of(FIRE, false, HEAD_OF_COST_2, 1, MAY_CALL, ON_TIME));
    assertEquals(new SlotUse.Call(),
        SlotUse.of(FIRE, false, HEAD_OF_COST_2, Long.MAX_VALUE, MAY_CALL, ON_TIME),
        "a slot that counts no cost reserves everything");
  }

  @Test
  @DisplayName("a lane that may not call (a disabled endpoint) wastes the slot ('disabled')")
  void shouldWasteTheSlotOfALaneThatMayNotCall() {
    assertEquals(new SlotUse.Wasted("disabled"),
        SlotUse.of(FIRE, false, HEAD_OF_COST_2, 2, () -> false, ON_TIME));
  }

  @Test
  @DisplayName("whether the lane may call is asked only of a slot that would call: asking may take the endpoint's one probe")
  void shouldAskWhetherTheLaneMayCallOnlyOfASlotThatWouldCall() {
    AtomicBoolean asked = new AtomicBoolean();
    BooleanSupplier probe = () -> {
      asked.set(true);
      return true;
    };

    SlotUse.of(DROP, false, HEAD_OF_COST_2, 2, probe, ON_TIME);
    SlotUse.of(FIRE, false, Optional.empty(), 2, probe, ON_TIME);
    SlotUse.of(FIRE, false, HEAD_OF_COST_2, 1, probe, ON_TIME);

    assertFalse(asked.get());
  }

  @Test
  @DisplayName("a head past its deadline is expired, never called; but only by a slot that could call it")
  void shouldExpireAHeadPastItsDeadlineOnlyInASlotThatCouldCallIt() {
    assertEquals(new SlotUse.Expire(),
        SlotUse.of(FIRE, false, HEAD_OF_COST_2, 2, MAY_CALL, e -> true));
    assertEquals(new SlotUse.Wasted("disabled"),
        SlotUse.of(FIRE, false, HEAD_OF_COST_2, 2, () -> false, e -> true),
        "a lane that may not call keeps the entry queued: the deadline is asked last");
  }

  @Test
  @DisplayName("a due slot, a head it can afford, a lane that may call, a deadline ahead: the head is called")
  void shouldCallTheHeadOtherwise() {
    assertEquals(new SlotUse.Call(), SlotUse.of(FIRE, false, HEAD_OF_COST_2, 2, MAY_CALL, ON_TIME));
  }
}
