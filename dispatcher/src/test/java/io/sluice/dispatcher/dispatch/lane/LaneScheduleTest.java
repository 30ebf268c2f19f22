package io.sluice.dispatcher.dispatch.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.lane.SlotPacer.Decision;
import io.sluice.testkit.FakeClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A provider lane's decisions, as a specification, on a fake clock: nanoseconds on the lane's
 * clock, microseconds on the leak's. The leak's clock reads the lane's (in microseconds) and its
 * answers take no time, so a slot at {@code t} on the leak's clock is due at {@code t} here.
 */
class LaneScheduleTest {
  private static final long MS = 1_000_000;
  /** 10 calls a second: slots 100 ms apart, used at most 50 ms late. */
  private static final double RATE = 10;
  private static final long INTERVAL = 100 * MS;
  private static final int MAX_IN_FLIGHT = 4;

  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final LaneSchedule lane = new LaneSchedule(RATE, MAX_IN_FLIGHT, clock.nanos());

  @Test
  void shouldTellHowMuchSlowerThanItsUsualAnAnswerCame() {
    LaneSchedule schedule = new LaneSchedule(10, 4, 0);
    long ms = 1_000_000;
    // A provider that always answers in 2 s: its usual is 2 s, its answers no slower.
    assertEquals(0, schedule.answered(2_000 * ms));
    for (int i = 0; i < 100; i++) {
      assertEquals(0, schedule.answered(2_000 * ms));
    }
    // One held up 300 ms in this process: 300 ms slower than the usual.
    assertEquals(300 * ms, schedule.answered(2_300 * ms));
    LaneSchedule fast = new LaneSchedule(10, 4, 0);
    fast.answered(ms);
    assertTrue(fast.answered(400 * ms) >= 399 * ms, "a 1 ms provider's answer after 400 ms");
  }

  @Test
  void shouldSendTheFirstCallAloneUntilItsAnswerHasBeenJudged() {
    assertEquals(1, lane.claimSlots(5, clock.nanos()), "a cold lane claims one slot");
    long due = grant(1);
    assertEquals(0, lane.claimSlots(5, clock.nanos()), "its slot is pending: nothing more");
    fireAndStart(due);
    assertEquals(0, lane.claimSlots(4, clock.nanos()), "its call is in flight: nothing more");
    lane.ended(20 * MS);
    assertEquals(1, lane.claimSlots(4, clock.nanos()),
        "answered but not yet judged: still one call at a time");
    answer(0);
    lane.judged();
    assertEquals(MAX_IN_FLIGHT, lane.claimSlots(4, clock.nanos()),
        "warm: as many as maxInFlight");
  }

  @Test
  void shouldSizeClaimsToTheQueuedWorkWithoutASlotAndTheRoomInFlight() {
    warmUp();
    assertEquals(2, lane.claimSlots(2, clock.nanos()), "two queued: two slots, not maxInFlight");
    long first = grant(2);
    assertEquals(2, lane.claimSlots(10, clock.nanos()),
        "ten queued, two slots pending: room for two more of the four in flight");
    grant(2);
    assertEquals(0, lane.claimSlots(10, clock.nanos()), "four pending fill the room");
    fireAndStart(first);
    assertEquals(0, lane.claimSlots(10, clock.nanos()),
        "one call in flight and three slots pending still fill it");
    lane.ended(20 * MS);
    assertEquals(1, lane.claimSlots(10, clock.nanos()), "the call came back: room for one");
  }

  @Test
  void shouldKeepOneClaimOutAtATime() {
    warmUp();
    assertEquals(3, lane.claimSlots(3, clock.nanos()));
    assertEquals(0, lane.claimSlots(3, clock.nanos()), "its answer would count the same work");
    answer(0);
    lane.noSlotsUntil(clock.nanos(), clock.micros(), clock.micros());
    clock.advanceMillis(1);
    assertEquals(3, lane.claimSlots(3, clock.nanos()), "answered: the next claim may go");
  }

  @Test
  void shouldNotClaimAgainBeforeTheLeaksNextFreeSlot() {
    warmUp();
    lane.claimSlots(3, clock.nanos());
    answer(0);
    assertEquals(80 * MS, lane.noSlotsUntil(clock.nanos(), clock.micros(), clock.micros() + 80_000),
        "kick again when the leak said its next slot frees");
    assertClaimsResumeAfterMillis(80, "asking before then is pointless");
  }

  @Test
  void shouldClaimAgainOnceALeaseOfItsOwnIsBackEvenBeforeTheLeaksRetry() {
    warmUp();
    lane.claimSlots(3, clock.nanos());
    answer(0);
    // Concurrency full: the leak's retryAt is its poll for other instances' releases.
    lane.noSlotsUntil(clock.nanos(), clock.micros(), clock.micros() + 50_000);
    clock.advanceMillis(20);
    assertEquals(0, lane.claimSlots(3, clock.nanos()), "no lease back yet: the wait holds");
    lane.leaseReturned(clock.nanos());
    assertEquals(3, lane.claimSlots(3, clock.nanos()),
        "a lease of this lane is back: a slot may be free now, 30 ms before the poll");
  }

  @Test
  void shouldWaitAtLeastOneMillisecondWhenTheLeakGrantsNothing() {
    lane.claimSlots(1, clock.nanos());
    answer(0);
    assertEquals(MS, lane.noSlotsUntil(clock.nanos(), clock.micros(), clock.micros() - 5_000),
        "a next slot already past (clocks apart) does not make the lane ask in a loop");
  }

  @Test
  void shouldRetryAQuarterSecondAfterTheLeakDidNotAnswer() {
    warmUp();
    lane.claimSlots(3, clock.nanos());
    assertEquals(250 * MS, lane.claimFailed(clock.nanos()));
    assertClaimsResumeAfterMillis(250, "no claim at the silent leak before then");
  }

  @Test
  void shouldPauseClaimsUntilTheProvidersRetryAfter() {
    warmUp();
    lane.pause(clock.nanos(), 2_000);
    assertClaimsResumeAfterMillis(2_000, "a 429 with Retry-After: 2 holds claims");
  }

  @Test
  void shouldNotCutALongerPauseShortWithAShorterOne() {
    warmUp();
    lane.pause(clock.nanos(), 2_000);
    clock.advanceMillis(500);
    lane.pause(clock.nanos(), 100);
    assertClaimsResumeAfterMillis(1_500, "the first pause still runs");
  }

  @Test
  void shouldSpendASlotThatComesUpWhilePausedInsteadOfSavingIt() {
    warmUp();
    lane.claimSlots(1, clock.nanos());
    long due = grant(1);
    lane.pause(clock.nanos(), 1_000);
    clock.advanceMillis(100);
    assertInstanceOf(Decision.Drop.class, lane.slotDue(clock.nanos(), due, INTERVAL),
        "no call starts while the provider asked us to wait");
    clock.advanceMillis(900);
    assertEquals(1, lane.claimSlots(1, clock.nanos()),
        "the dropped slot is no longer pending: a new one is claimed after the pause");
  }

  @Test
  void shouldDropASlotMoreThanHalfAnIntervalLateAsStaleAndFireOneLessLate() {
    lane.claimSlots(1, clock.nanos());
    long first = grant(1);
    assertEquals(new Decision.Drop(51 * MS), lane.slotDue(first + 51 * MS, first, INTERVAL),
        "used 51 ms late it would crowd the next instance's slot");
    long second = first + INTERVAL;
    assertEquals(new Decision.Fire(), lane.slotDue(second + 50 * MS, second, INTERVAL),
        "50 ms late is within half an interval");
  }

  @Test
  void shouldUseNoSlotLaterThanHalfTheTotalsIntervalUnderAProviderTotal() {
    // A 40/s total: its slots, every endpoint's together, 25 ms apart; half of that is 12.5 ms.
    lane.shareTotal(40, 40, 100 * MS, clock.nanos());
    lane.claimSlots(1, clock.nanos());
    long first = grant(1);
    assertEquals(new Decision.Drop(13 * MS), lane.slotDue(first + 13 * MS, first, INTERVAL),
        "13 ms late it could crowd another endpoint's slot of the total");
    long second = first + INTERVAL;
    assertEquals(new Decision.Fire(), lane.slotDue(second + 12 * MS, second, INTERVAL));
  }

  @Test
  void shouldNeverFireASlotEarly() {
    lane.claimSlots(1, clock.nanos());
    answer(1);
    long due = lane.dueNanos(clock.micros() + 100_000);
    assertEquals(new Decision.WaitUntil(due), lane.slotDue(due - 5 * MS, due, INTERVAL),
        "a timer that fires early waits for the slot");
    assertEquals(0, lane.claimSlots(1, clock.nanos()), "a waiting slot is still pending");
    assertEquals(new Decision.Fire(), lane.slotDue(due, due, INTERVAL));
  }

  @Test
  void shouldAskTheLeakAgainAtOnceWhenTheRateRisesAndWithinASecondWhatever() {
    LaneSchedule slow = new LaneSchedule(0.0001, MAX_IN_FLIGHT, clock.nanos());
    slow.claimSlots(1, clock.nanos());
    slow.claimAnswered(clock.nanos(), clock.nanos(), clock.micros());
    long wait = slow.noSlotsUntil(clock.nanos(), clock.micros(),
        clock.micros() + 10_000_000_000L);
    assertEquals(1_000 * MS, wait, "a slot 2.8 hours away is asked about again within a second");
    clock.advance(Duration.ofMillis(10));
    assertEquals(0, slow.claimSlots(1, clock.nanos()), "not before then at the same rate");

    slow.retune(20, Long.MAX_VALUE, clock.nanos());

    assertEquals(1, slow.claimSlots(1, clock.nanos()),
        "the rate rose: the wait set at the old one ends now");
  }

  @Test
  void shouldTolerateLessLatenessAfterTheRateRises() {
    lane.claimSlots(1, clock.nanos());
    long due = grant(1);
    lane.retune(100, Long.MAX_VALUE, clock.nanos());
    assertEquals(new Decision.Drop(10 * MS), lane.slotDue(due + 10 * MS, due, 10 * MS),
        "at 100/s half an interval is 5 ms");

    LaneSchedule unchanged = new LaneSchedule(RATE, MAX_IN_FLIGHT, clock.nanos());
    unchanged.claimSlots(1, clock.nanos());
    unchanged.claimAnswered(clock.nanos(), clock.nanos(), clock.micros());
    unchanged.granted(1);
    long dueThere = unchanged.dueNanos(clock.micros());
    assertEquals(new Decision.Fire(), unchanged.slotDue(dueThere + 10 * MS, dueThere, INTERVAL),
        "at 10/s the same lateness is used");
  }

  @Test
  void shouldUseNoSlotLaterThanTheWindowMarginWhenTheLimitsHaveWindows() {
    lane.claimSlots(1, clock.nanos());
    long first = grant(1);
    lane.retune(RATE, 20 * MS, clock.nanos());
    assertEquals(new Decision.Drop(21 * MS), lane.slotDue(first + 21 * MS, first, INTERVAL),
        "21 ms late is within half an interval, but a window's log spans per + 20 ms only");
    long second = first + INTERVAL;
    assertEquals(new Decision.Fire(), lane.slotDue(second + 20 * MS, second, INTERVAL));
    assertEquals(2 * MS, LaneSchedule.toleranceNanos(RATE, 0),
        "a margin below timer jitter is kept as 2 ms");
    assertEquals(50 * MS, LaneSchedule.toleranceNanos(RATE, 80 * MS),
        "a wide margin leaves half an interval");
  }

  @Test
  void shouldTolerateTwoMillisecondsAtLeastForVeryFastProviders() {
    LaneSchedule fast = new LaneSchedule(1_000, MAX_IN_FLIGHT, clock.nanos());
    fast.claimSlots(2, clock.nanos());
    fast.claimAnswered(clock.nanos(), clock.nanos(), clock.micros());
    fast.granted(2);
    long first = fast.dueNanos(clock.micros());
    assertEquals(new Decision.Fire(), fast.slotDue(first + 1_900_000, first, MS),
        "half an interval would be 0.5 ms, less than ordinary timer jitter");
    long second = first + MS;
    assertEquals(new Decision.Drop(2_100_000), fast.slotDue(second + 2_100_000, second, MS));
  }

  @Test
  void shouldCarryALateHandOffAndDropOneSlotAtMostWhenEveryTimerWakeUpIsLateToo() {
    warmUp();
    // A busy machine: the timer wakes every slot, and every slot held for spacing, 8 ms late. One
    // slot comes up 40 ms late (a collector pause), within half an interval: it is used. At 10/s
    // a second holds 10 slots exactly, so that lateness is never made up by sending faster: the
    // lane runs behind, and drops one slot once it would be more than half an interval late.
    long timerDelay = 8 * MS;
    long first = clock.nanos();
    List<Long> sent = new java.util.ArrayList<>();
    int dropped = 0;
    for (int k = 0; k < 50; k++) {
      lane.claimSlots(1, clock.nanos());
      answer(1);
      long due = first + k * INTERVAL;
      long now = due + (k == 0 ? 40 * MS : timerDelay);
      Decision d = lane.slotDue(now, due, INTERVAL);
      while (d instanceof Decision.WaitUntil w) {
        now = w.atNanos() + timerDelay;
        d = lane.slotDue(now, due, INTERVAL);
      }
      if (d instanceof Decision.Drop) {
        dropped++;
        continue;
      }
      assertTrue(now - due >= 0 && now - due <= INTERVAL / 2,
          "slot " + k + " at or after its time and at most half an interval late");
      assertTrue(sent.isEmpty() || now - sent.get(sent.size() - 1) >= 3 * INTERVAL / 4,
          "slot " + k + " at least three quarters of an interval after the one before");
      assertTrue(sent.size() < 10 || now - sent.get(sent.size() - 10) >= 1_000 * MS,
          "slot " + k + ": no 11 calls within a second");
      lane.started(now);
      lane.ended(MS);
      sent.add(now);
    }
    assertTrue(dropped <= 1, dropped + " slots dropped of 50");
  }

  @Test
  void shouldClaimNothingAndDropEverySlotOnceClosed() {
    warmUp();
    lane.claimSlots(1, clock.nanos());
    long due = grant(1);
    lane.close();
    assertFalse(lane.mayClaim());
    assertEquals(0, lane.claimSlots(3, clock.nanos()));
    assertInstanceOf(Decision.Drop.class, lane.slotDue(due, due, INTERVAL));
  }

  @Test
  void shouldReserveTheDearestQueuedCostForEachSlot() {
    assertEquals(1, lane.slotCost(true), "nothing queued: a slot of cost 1");
    lane.queued(3);
    lane.queued(7);
    lane.queued(7);
    lane.queued(1);
    assertEquals(7, lane.slotCost(true), "any queued event may be picked when the slot fires");
    assertEquals(1, lane.slotCost(false), "limits that count no cost reserve none");
    lane.unqueued(7);
    assertEquals(7, lane.slotCost(true), "one of the two dearest is still queued");
    lane.unqueued(7);
    assertEquals(3, lane.slotCost(true));
  }

  @Test
  void shouldFindQueuedEntriesDearerThanTheSmallestCostWindowNowAllows() {
    assertFalse(lane.holdsCostAbove(10), "nothing queued");
    lane.queued(5);
    lane.queued(12);
    assertTrue(lane.holdsCostAbove(10), "a learned window of 10 can never send a cost of 12");
    assertFalse(lane.holdsCostAbove(12));
    lane.unqueued(12);
    assertFalse(lane.holdsCostAbove(10));
  }

  @Test
  void shouldDrainAtTheLimitsUntilSlowCallsFillTheRoomInFlight() {
    assertEquals(10.0, lane.drainPerSecond(10), 1e-9, "no call back yet: the limits' rate");
    lane.ended(2_000 * MS);
    assertEquals(2.0, lane.drainPerSecond(10), 1e-9, "4 in flight taking 2 s: 2 a second");
    lane.ended(10 * MS);
    assertEquals(4e9 / (2_000 * MS + (10 * MS - 2_000 * MS) / 16.0), lane.drainPerSecond(10), 1e-9,
        "latency is a moving average: one fast call weighs a sixteenth");
  }

  /**
   * With three queued on a warm lane: no claim until {@code millis} from now, then a claim of
   * three.
   */
  private void assertClaimsResumeAfterMillis(long millis, String why) {
    clock.advanceMillis(millis - 1);
    assertEquals(0, lane.claimSlots(3, clock.nanos()), why);
    clock.advanceMillis(1);
    assertEquals(3, lane.claimSlots(3, clock.nanos()), "claims resume after " + millis + " ms");
  }

  /**
   * Makes the lane warm: its first call went out, came back and was judged; a second later, so
   * that the next call is not held for spacing after it.
   */
  @Test
  void shouldClaimNoMoreThanItsShareOfALeakOthersAreBusyOnAndSayWhenToLookAgain() {
    warmUp();
    // A quarter of 10/s with 2% slack: 2.55 slots a second, at most 100 ms of it and one more.
    lane.shareLeak(0.25, 100 * MS, clock.nanos());
    assertEquals(1, lane.claimSlots(4, clock.nanos()), "one slot is all the share holds now");
    lane.claimAnswered(clock.nanos(), clock.nanos(), clock.micros());
    lane.granted(1);
    // The slot lies a lookahead ahead: others hold the slots before it.
    lane.claimedFromShare(1, clock.micros() + 100_000, 100_000, clock.micros(), clock.nanos());
    assertEquals(0, lane.claimSlots(4, clock.nanos()), "the share is spent");
    long wait = lane.takeShareWait();
    assertTrue(wait > 0 && wait <= LaneSchedule.MAX_SHARE_WAIT_NANOS, "wait " + wait);
    assertEquals(0, lane.takeShareWait(), "one wake-up per hold");
    assertEquals(0, lane.claimSlots(4, clock.nanos() + wait - 1), "not before the wait is over");
  }

  @Test
  void shouldNotHoldBackAClaimWhenTheLeakHadItsNextSlotFree() {
    warmUp();
    lane.shareLeak(0.25, 100 * MS, clock.nanos());
    assertEquals(1, lane.claimSlots(4, clock.nanos()));
    lane.claimAnswered(clock.nanos(), clock.nanos(), clock.micros());
    lane.granted(1);
    // The slot granted is now: nobody held the leak's next slot, so the others leave it unused.
    lane.claimedFromShare(1, clock.micros(), 100_000, clock.micros(), clock.nanos());
    assertEquals(1, lane.claimSlots(4, clock.nanos()), "the share refilled: unused capacity is taken");
  }

  @Test
  void shouldClaimFreelyOnceTheShareIsUnknown() {
    warmUp();
    lane.shareLeak(0.25, 100 * MS, clock.nanos());
    lane.unshared();
    assertEquals(MAX_IN_FLIGHT, lane.claimSlots(10, clock.nanos()));
  }

  @Test
  void shouldClaimNoMoreThanItsPartOfTheProvidersTotalWhileOthersHoldTheTotalsNextSlots() {
    warmUp();
    // 2 of a 40/s total, 2% slack: 2.04 a second, at most 100 ms of it and one more (1.2 slots).
    lane.shareTotal(2, 40, 100 * MS, clock.nanos());
    assertEquals(1, lane.claimSlots(4, clock.nanos()), "one slot is all the part holds now");
    lane.claimAnswered(clock.nanos(), clock.nanos(), clock.micros());
    lane.granted(1);
    // The joint slot lies 90 ms ahead (the endpoint's interval is 100 ms): others hold the
    // total's next slots, 25 ms apart.
    lane.claimedFromShare(1, clock.micros() + 90_000, 100_000, clock.micros(), clock.nanos());
    assertEquals(0, lane.claimSlots(4, clock.nanos()), "the part is spent");
    long wait = lane.takeShareWait();
    assertTrue(wait > 0 && wait <= LaneSchedule.MAX_SHARE_WAIT_NANOS, "wait " + wait);
    clock.advanceMillis(500);
    assertEquals(1, lane.claimSlots(4, clock.nanos()), "half a second on, one more slot is its due");
  }

  @Test
  void shouldTakeTheTotalsUnusedSlotsBeyondItsPart() {
    warmUp();
    lane.shareTotal(2, 40, 100 * MS, clock.nanos());
    assertEquals(1, lane.claimSlots(4, clock.nanos()));
    lane.claimAnswered(clock.nanos(), clock.nanos(), clock.micros());
    lane.granted(1);
    // The joint slot is now: nobody held the total's next slot, so its capacity goes unused.
    lane.claimedFromShare(1, clock.micros(), 100_000, clock.micros(), clock.nanos());
    assertEquals(1, lane.claimSlots(4, clock.nanos()), "the part refilled: unused capacity is taken");
  }

  @Test
  void shouldNotTakeASlotALittleAheadForAnIdleTotal() {
    warmUp();
    lane.shareTotal(1, 8, 100 * MS, clock.nanos());
    assertEquals(1, lane.claimSlots(4, clock.nanos()));
    lane.claimAnswered(clock.nanos(), clock.nanos(), clock.micros());
    lane.granted(1);
    // 5 ms ahead: another lane holds the total's slot before it.
    lane.claimedFromShare(1, clock.micros() + 5_000, 125_000, clock.micros(), clock.nanos());
    assertEquals(0, lane.claimSlots(4, clock.nanos()), "its part of 1/s is spent");
  }

  private void warmUp() {
    lane.claimSlots(1, clock.nanos());
    long due = grant(1);
    fireAndStart(due);
    lane.ended(20 * MS);
    lane.judged();
    clock.advanceMillis(1_000);
  }

  /** The claim out is answered now with {@code slots} slots from now on; returns the first's due time. */
  private long grant(int slots) {
    answer(slots);
    return lane.dueNanos(clock.micros());
  }

  private void answer(int slots) {
    lane.claimAnswered(clock.nanos(), clock.nanos(), clock.micros());
    lane.granted(slots);
  }

  /** The slot due at {@code due} comes up on time and its call starts. */
  private void fireAndStart(long due) {
    if (clock.nanos() - due < 0) {
      clock.advance(Duration.ofNanos(due - clock.nanos()));
    }
    assertEquals(new Decision.Fire(), lane.slotDue(clock.nanos(), due, INTERVAL));
    lane.started(clock.nanos());
  }
}
