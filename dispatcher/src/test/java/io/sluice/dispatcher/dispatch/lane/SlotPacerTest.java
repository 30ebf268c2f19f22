package io.sluice.dispatcher.dispatch.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.lane.SlotPacer.Decision;
import org.junit.jupiter.api.Test;

/** Slot timing on a fake clock: nanoseconds locally, microseconds on the leak's clock. */
class SlotPacerTest {
  private static final long MS = 1_000_000;
  /** 24/s: 41.667 ms between slots, half of it tolerated. */
  private static final long INTERVAL = 41_667_000;
  private static final long TOLERANCE = INTERVAL / 2;
  private static final long SLACK = MS;

  @Test
  void shouldMapSlotsWithTheShortestReturnDelaySeenNotTheLatestClaims() {
    SlotPacer pacer = new SlotPacer(TOLERANCE, SLACK);
    // The leak's clock reads 1 000 000 us when ours reads 5 000 ms + the return delay.
    pacer.answered(5_000 * MS - 1 * MS, 5_000 * MS + 1 * MS, 1_000_000);
    // A claim whose answer sat 30 ms on a busy core: mapping with it would fire 30 ms late.
    pacer.answered(5_100 * MS - 1 * MS, 5_100 * MS + 30 * MS, 1_100_000);
    assertEquals(5_200 * MS + 1 * MS, pacer.dueNanos(1_200_000),
        "due 200 ms after the leak's 1 000 000 us, late only by the shortest return delay (1 ms)");
  }

  @Test
  void shouldForgetOffsetsOfAnotherClockRatherThanFireEarly() {
    SlotPacer pacer = new SlotPacer(TOLERANCE, SLACK);
    // Claims of the in-process leak: its clock is ours, 1 ms return delay.
    pacer.answered(5_000 * MS - 1 * MS, 5_000 * MS + 1 * MS, 5_000_000);
    // Redis answers again; its clock is 50 ms behind ours. This answer (2 ms round trip) proves
    // the offset is at least 48 ms: the in-process sample (1 ms) belongs to another clock.
    pacer.answered(5_100 * MS - 1 * MS, 5_100 * MS + 1 * MS, 5_050_000);
    assertEquals(5_200 * MS + 1 * MS, pacer.dueNanos(5_150_000),
        "a slot at Redis's 5 150 000 us is due 100 ms after Redis's 5 050 000 us, not 50 ms early");
  }

  @Test
  void shouldForgetOffsetsOlderThanTheLastSamples() {
    SlotPacer pacer = new SlotPacer(TOLERANCE, SLACK);
    pacer.answered(0, 1 * MS, 0);
    for (int i = 1; i <= SlotPacer.SAMPLES; i++) {
      pacer.answered(i * 100 * MS, i * 100 * MS + 3 * MS, i * 100_000L);
    }
    assertEquals(2_000 * MS + 3 * MS, pacer.dueNanos(2_000_000));
  }

  @Test
  void shouldCountTheOffsetsUncertaintyAsLateness() {
    SlotPacer pacer = new SlotPacer(TOLERANCE, SLACK);
    // Right after start: the only claim took 100 ms (a cold Redis client). Its slot at the leak's
    // 0 maps to 100 ms here, and may really have been due up to 100 ms earlier.
    pacer.answered(0, 100 * MS, 0);
    long due = pacer.dueNanos(0);
    assertEquals(100 * MS, due);
    assertEquals(new Decision.Drop(100 * MS), pacer.decide(due, due, INTERVAL));
    // A warm claim with a 1 ms round trip narrows it: the next slot is used.
    pacer.answered(200 * MS, 201 * MS, 101_000);
    due = pacer.dueNanos(101_000 + 41_667);
    assertEquals(new Decision.Fire(), pacer.decide(due, due, INTERVAL));
  }

  @Test
  void shouldFireOnTimeAndNeverEarly() {
    SlotPacer pacer = new SlotPacer(TOLERANCE, SLACK);
    assertEquals(new Decision.Fire(), pacer.decide(100 * MS, 100 * MS, INTERVAL));
    pacer.handed(100 * MS, 100 * MS);
    assertEquals(new Decision.WaitUntil(200 * MS), pacer.decide(190 * MS, 200 * MS, INTERVAL),
        "a timer that fires early waits for the due time");
  }

  @Test
  void shouldCarryALateHandOffForwardInsteadOfFollowingItClosely() {
    SlotPacer pacer = new SlotPacer(TOLERANCE, SLACK);
    // Slot 0, due at 0, was handed over 15 ms late (a stalled timer).
    assertEquals(new Decision.Fire(), pacer.decide(15 * MS, 0, INTERVAL));
    pacer.handed(15 * MS, 15 * MS + MS / 5);
    // Slot 1, due at 41.667 ms, fires on time but only 26.7 ms after that hand-off: it waits
    // until one interval (less the 1 ms slack) after it.
    assertEquals(new Decision.WaitUntil(15 * MS + INTERVAL - SLACK),
        pacer.decide(INTERVAL, INTERVAL, INTERVAL));
    assertEquals(new Decision.Fire(), pacer.decide(15 * MS + INTERVAL - SLACK, INTERVAL, INTERVAL));
  }

  @Test
  void shouldSpaceFromWhenASlowClientReturned() {
    SlotPacer pacer = new SlotPacer(TOLERANCE, SLACK);
    // A cold client took 12 ms to return: its request left then.
    assertEquals(new Decision.Fire(), pacer.decide(0, 0, INTERVAL));
    pacer.handed(0, 12 * MS);
    assertEquals(new Decision.WaitUntil(12 * MS + INTERVAL - 2 * SLACK),
        pacer.decide(INTERVAL, INTERVAL, INTERVAL));
  }

  @Test
  void shouldDropASlotThatCouldOnlyBeUsedMoreThanHalfAnIntervalLate() {
    SlotPacer pacer = new SlotPacer(TOLERANCE, SLACK);
    // A stalled timer: the slot due at 0 comes up 25 ms late.
    assertEquals(new Decision.Drop(25 * MS), pacer.decide(25 * MS, 0, INTERVAL));
    // A cold client returned 60 ms after its hand-off: the next slot would be 58 ms late.
    assertEquals(new Decision.Fire(), pacer.decide(100 * MS, 100 * MS, INTERVAL));
    pacer.handed(100 * MS, 160 * MS);
    assertEquals(new Decision.Drop(58 * MS), pacer.decide(160 * MS, 100 * MS + INTERVAL, INTERVAL));
  }

  @Test
  void shouldNotLetTheTimersOwnDelayAddUpOverConsecutiveSlots() {
    SlotPacer pacer = new SlotPacer(TOLERANCE, SLACK);
    long timerDelay = MS / 2;
    long lastStart = Long.MIN_VALUE;
    for (int k = 0; k < 10_000; k++) {
      long due = k * INTERVAL;
      long now = due + timerDelay;
      Decision d = pacer.decide(now, due, INTERVAL);
      while (d instanceof Decision.WaitUntil w) {
        now = w.atNanos() + timerDelay;
        d = pacer.decide(now, due, INTERVAL);
      }
      assertEquals(new Decision.Fire(), d, "slot " + k);
      if (lastStart != Long.MIN_VALUE) {
        assertTrue(now - lastStart >= INTERVAL - SLACK, "slot " + k);
      }
      pacer.handed(now, now + MS / 5);
      lastStart = now;
    }
  }

  @Test
  void shouldNotLetALateCallAndTwoOnTimeLandWithinOneSecond() {
    // 1.92/s toward an endpoint allowing 2 in any second: slots 520.8 ms apart, so a second
    // holds 2 of them; tolerance and slack as the lane sets them (260 ms and 130 ms).
    long interval = 520_833_333;
    SlotPacer pacer = new SlotPacer(LaneSchedule.toleranceNanos(1.92), LaneSchedule.slackNanos(1.92));
    // A stall: slot 0 is handed over 250 ms late (still within the tolerance).
    assertEquals(new Decision.Fire(), pacer.decide(250 * MS, 0, interval));
    pacer.handed(250 * MS, 250 * MS);
    // Slot 1 waits for its spacing from that hand-off, as before.
    long spaced = 250 * MS + interval - LaneSchedule.slackNanos(1.92);
    assertEquals(new Decision.WaitUntil(spaced), pacer.decide(interval, interval, interval));
    assertEquals(new Decision.Fire(), pacer.decide(spaced, interval, interval));
    pacer.handed(spaced, spaced);
    // Slot 2 is due at 1 041.7 ms, 792 ms after slot 0's hand-off: sent then, the endpoint would
    // see three calls in a second. It waits until one second (and 10 ms for the way out of the
    // process) after slot 0's hand-off.
    assertEquals(new Decision.WaitUntil(1_260 * MS), pacer.decide(2 * interval, 2 * interval, interval));
    assertEquals(new Decision.Fire(), pacer.decide(1_260 * MS, 2 * interval, interval));
  }

  @Test
  void shouldKeepEverySecondWithinTheSlotsItHoldsWhateverTheTimersDelays() {
    // 1.92/s for 20 000 slots (about three hours), each woken late by 0-40 ms and one in 50 by a
    // stall of up to 400 ms: an endpoint allowing 2 in any second never sees a third, and the
    // lane uses nearly all of its slots.
    long interval = 520_833_333;
    SlotPacer pacer = new SlotPacer(LaneSchedule.toleranceNanos(1.92), LaneSchedule.slackNanos(1.92));
    pacer.answered(0, 0, 0);
    java.util.Random random = new java.util.Random(23);
    long[] sent = new long[20_000];
    int used = 0;
    for (int k = 0; k < sent.length; k++) {
      long due = k * interval;
      long delay = random.nextInt(50) == 0 ? random.nextInt(400) * MS : random.nextInt(40) * MS;
      long now = due + delay;
      Decision d = pacer.decide(now, due, interval);
      while (d instanceof Decision.WaitUntil w) {
        now = w.atNanos() + random.nextInt(40) * MS;
        d = pacer.decide(now, due, interval);
      }
      if (d instanceof Decision.Fire) {
        pacer.handed(now, now + MS / 5);
        sent[used++] = now;
      }
    }
    for (int i = 2; i < used; i++) {
      assertTrue(sent[i] - sent[i - 2] >= 1_010 * MS, "calls " + (i - 2) + " to " + i
          + " within " + (sent[i] - sent[i - 2]) / MS + " ms");
    }
    assertTrue(used > 0.95 * sent.length, used + " slots used of " + sent.length);
  }

  @Test
  void shouldKeepOneCallInAnyIntervalBelowOneASecond() {
    // 0.48/s toward an endpoint allowing one call in any 2 s: slots 2 083 ms apart.
    long interval = 2_083_333_333L;
    SlotPacer pacer = new SlotPacer(LaneSchedule.toleranceNanos(0.48), LaneSchedule.slackNanos(0.48));
    pacer.answered(0, 0, 0);
    assertEquals(new Decision.Fire(), pacer.decide(600 * MS, 0, interval));
    pacer.handed(600 * MS, 600 * MS);
    // The next slot, on time, would come 1 483 ms after that late call: it waits a whole interval.
    assertEquals(new Decision.WaitUntil(600 * MS + interval), pacer.decide(interval, interval, interval));
  }

  /** 1.92/s toward an endpoint allowing 2 in any second: slots 520.8 ms apart. */
  private static final long STRICT_INTERVAL = 520_833_333;

  private static SlotPacer strictPacer() {
    SlotPacer pacer = new SlotPacer(LaneSchedule.toleranceNanos(1.92), LaneSchedule.slackNanos(1.92));
    pacer.answered(0, 0, 0);
    return pacer;
  }

  /**
   * Runs {@code count} slots from slot {@code first} on, each call answered {@code latency} after
   * its hand-off, following every wait; returns the instant after the last slot.
   */
  private static long run(SlotPacer pacer, int first, int count, long latency) {
    for (int k = first; k < first + count; k++) {
      long due = k * STRICT_INTERVAL;
      long now = due;
      Decision d = pacer.decide(now, due, STRICT_INTERVAL);
      while (d instanceof Decision.WaitUntil w) {
        now = w.atNanos();
        d = pacer.decide(now, due, STRICT_INTERVAL);
      }
      if (d instanceof Decision.Fire) {
        pacer.answeredAt(pacer.handed(now, now), now + latency);
      }
    }
    return (first + count) * STRICT_INTERVAL;
  }

  @Test
  void shouldCountACallWhoseAnswerCameLateAsReachingTheProviderThatLate() {
    // A lane that has seen 40 answers of 1 ms.
    SlotPacer pacer = strictPacer();
    run(pacer, 0, 40, MS);
    // Call 40, handed over on time, answered 61 ms later: the provider may have seen it 60 ms
    // after its hand-off.
    long h40 = 40 * STRICT_INTERVAL;
    assertEquals(new Decision.Fire(), pacer.decide(h40, h40, STRICT_INTERVAL));
    pacer.answeredAt(pacer.handed(h40, h40), h40 + 61 * MS);
    long h41 = 41 * STRICT_INTERVAL;
    assertEquals(new Decision.Fire(), pacer.decide(h41, h41, STRICT_INTERVAL));
    pacer.answeredAt(pacer.handed(h41, h41), h41 + MS);
    // Call 42's slot is on time, 1 041.7 ms after call 40's hand-off: sent then, it could land
    // 981.7 ms after call 40 did. It waits until a second and 10 ms after call 40 could have
    // landed.
    long due = 42 * STRICT_INTERVAL;
    assertEquals(new Decision.WaitUntil(h40 + 60 * MS + 1_010 * MS), pacer.decide(due, due, STRICT_INTERVAL));
  }

  @Test
  void shouldCountEveryAnswerWholeUntilTheLaneHasSeenEnoughOfThem() {
    // A new lane's first answers, 40 ms each (a cold connection, a fresh JVM): the fastest of
    // them says nothing yet about what comes before a call lands. Call 1 is held until a second
    // and 10 ms after call 0's answer.
    SlotPacer pacer = strictPacer();
    pacer.answeredAt(pacer.handed(0, 0), 40 * MS);
    pacer.answeredAt(pacer.handed(STRICT_INTERVAL, STRICT_INTERVAL), STRICT_INTERVAL + 40 * MS);
    long due = 2 * STRICT_INTERVAL;
    assertEquals(new Decision.WaitUntil(1_050 * MS), pacer.decide(due, due, STRICT_INTERVAL));
  }

  @Test
  void shouldNotHoldBackTheCallsOfAProviderThatIsAlwaysSlow() {
    // Every answer takes 300 ms: each call is as slow as the others, and the provider saw each
    // as long after its hand-off as the others. Once the lane has seen enough answers to trust
    // their fastest, the slots go on time.
    SlotPacer pacer = strictPacer();
    run(pacer, 0, 80, 300 * MS);
    for (int k = 80; k < 120; k++) {
      long due = k * STRICT_INTERVAL;
      assertEquals(new Decision.Fire(), pacer.decide(due, due, STRICT_INTERVAL), "slot " + k);
      pacer.answeredAt(pacer.handed(due, due), due + 300 * MS);
    }
  }

  @Test
  void shouldMoveACallAtMostAboutAnIntervalAndDropTheSlotItWouldCrowd() {
    // A call that timed out after 2 s: where it landed is unknown; it counts as landing twice the
    // tolerance (about an interval) after its hand-off. The slot two after it would then go more
    // than the tolerance late: it is dropped. The one after that counts from the same call and
    // fires on time.
    SlotPacer pacer = strictPacer();
    pacer.answeredAt(pacer.handed(0, 0), MS);
    long slow = pacer.handed(STRICT_INTERVAL, STRICT_INTERVAL);
    pacer.handed(2 * STRICT_INTERVAL, 2 * STRICT_INTERVAL);
    pacer.answeredAt(slow, STRICT_INTERVAL + 2_000 * MS);
    long tolerance = LaneSchedule.toleranceNanos(1.92);
    long due = 3 * STRICT_INTERVAL;
    assertTrue(pacer.decide(due, due, STRICT_INTERVAL) instanceof Decision.Drop);
    long next = 4 * STRICT_INTERVAL;
    assertTrue(next >= STRICT_INTERVAL + 2 * tolerance + 1_010 * MS, "the next slot is clear of it");
    assertEquals(new Decision.Fire(), pacer.decide(next, next, STRICT_INTERVAL));
  }

  @Test
  void shouldNotAnchorWhereTheRuleLooksBackOverLessThanASecond() {
    // 1 000/s: the rule looks back 256 hand-offs over 256 ms. An answer 5 ms slow (five
    // intervals) would drop slot after slot there; the hand-offs alone count.
    long interval = MS;
    SlotPacer pacer = new SlotPacer(LaneSchedule.toleranceNanos(1000), LaneSchedule.slackNanos(1000));
    pacer.answered(0, 0, 0);
    for (int k = 0; k < 600; k++) {
      long due = k * interval;
      assertEquals(new Decision.Fire(), pacer.decide(due, due, interval), "slot " + k);
      long ticket = pacer.handed(due, due);
      pacer.answeredAt(ticket, due + (k % 10 == 0 ? 6 * MS : MS / 2));
    }
  }

  @Test
  void shouldNeverLetAnEndpointSeeThreeInASecondWhateverHoldsCallsAfterTheirHandOff() {
    // 1.92/s for 20 000 slots: each call reaches the endpoint 0-40 ms after its hand-off and one
    // in 50 up to 250 ms after (the client's threads, the network, the endpoint's own process
    // stalling), and is answered 1 ms after it landed. The endpoint, judging by arrival, never
    // sees a third call in a second, and the lane uses nearly all of its slots.
    SlotPacer pacer = strictPacer();
    java.util.Random random = new java.util.Random(23);
    long[] landed = new long[20_000];
    java.util.PriorityQueue<long[]> answers = new java.util.PriorityQueue<>(
        java.util.Comparator.comparingLong(a -> a[0]));
    int used = 0;
    for (int k = 0; k < landed.length; k++) {
      long due = k * STRICT_INTERVAL;
      long now = due + random.nextInt(5) * MS;
      while (!answers.isEmpty() && answers.peek()[0] <= now) {
        long[] a = answers.poll();
        pacer.answeredAt(a[1], a[0]);
      }
      Decision d = pacer.decide(now, due, STRICT_INTERVAL);
      while (d instanceof Decision.WaitUntil w) {
        now = w.atNanos() + random.nextInt(5) * MS;
        while (!answers.isEmpty() && answers.peek()[0] <= now) {
          long[] a = answers.poll();
          pacer.answeredAt(a[1], a[0]);
        }
        d = pacer.decide(now, due, STRICT_INTERVAL);
      }
      if (d instanceof Decision.Fire) {
        long ticket = pacer.handed(now, now);
        long held = random.nextInt(50) == 0 ? random.nextInt(250) * MS : random.nextInt(40) * MS;
        landed[used++] = now + held;
        answers.add(new long[] {now + held + MS, ticket});
      }
    }
    long[] arrivals = java.util.Arrays.copyOf(landed, used);
    java.util.Arrays.sort(arrivals);
    for (int i = 2; i < used; i++) {
      assertTrue(arrivals[i] - arrivals[i - 2] > 1_000 * MS, "calls " + (i - 2) + " to " + i
          + " landed within " + (arrivals[i] - arrivals[i - 2]) / MS + " ms");
    }
    assertTrue(used > 0.95 * landed.length, used + " slots used of " + landed.length);
  }
}
