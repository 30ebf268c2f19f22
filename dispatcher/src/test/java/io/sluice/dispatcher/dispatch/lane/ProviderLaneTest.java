package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.LaneId;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.dispatcher.provider.ResponseHeaders;
import io.sluice.config.ProviderLimit;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * The lane as a whole, on a fake clock: the in-process leak, a timer the test drives and a
 * provider that answers at once, all on the test's thread. What is observed is when calls start.
 */
class ProviderLaneTest {
  private static final long MS = 1_000_000;
  /** 10 calls a second: slots 100 ms apart. */
  private static final double RATE = 10;

  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final ManualTimer timer = new ManualTimer(clock);
  /** When each call started, on the lane's clock. */
  private final List<Long> started = new ArrayList<>();
  /** The statuses the provider answers, in order; 200 once they run out. */
  private final Deque<Integer> statuses = new ArrayDeque<>();
  /** While false, calls hang: their answers wait in {@link #unanswered}. */
  private boolean answering = true;
  private final List<CompletableFuture<ProviderResult>> unanswered = new ArrayList<>();
  /** The in-process leak, as the only instance: publications are answered with their own counts. */
  private final PublishingLeak leak = new PublishingLeak(
      new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros),
      (member, busyByTier) -> CompletableFuture.completedFuture(busyByTier));
  /** How long the provider takes to answer, on the fake clock (0: at once). */
  private Duration latency = Duration.ZERO;
  private final ProviderLane lane = lane(ProviderLimits.rateOnly(RATE));
  /** The event of each call started, in order. */
  private final List<String> startedEvents = new ArrayList<>();
  /** Why each slot that started no call was wasted, in order. */
  private final List<String> wasted = new ArrayList<>();

  /** A lane at {@code limits} (4 calls in flight once warm, a 100 ms lookahead). */
  private ProviderLane lane(ProviderLimits limits) {
    return lane(limits, leak, 100_000);
  }

  private ProviderLane lane(ProviderLimits limits, LeakyBucket leak, long lookaheadMicros) {
    return lane(limits, leak, lookaheadMicros, Pace.FULL, this::call);
  }

  /** A lane at {@code pace}, calling {@code provider}. */
  private ProviderLane lane(ProviderLimits limits, LeakyBucket leak, long lookaheadMicros,
      Pace pace, Provider provider) {
    return new ProviderLane(
        new ProviderLane.Settings(LaneId.provider("api"), 60_000_000, 4, lookaheadMicros,
            Map.of("std", 1.0), 100),
        new ProviderLane.Calls(LimitSource.fixed(limits), provider, leak),
        new LaneHooks(timer, (lane, entry, result, claimedAtMicros) -> {
        // As the dispatcher's settler does: a 429 pauses the lane for its Retry-After.
        if (result instanceof ProviderResult.Answered a && a.status() == 429) {
          return Settlement.of(List.of(new LaneOrder.Throttle(2_000, claimedAtMicros)), List::of);
        }
        return Settlement.NONE;
      }, new DispatchListener() {
        @Override
        public void slotWasted(String provider, String reason) {
          wasted.add(reason);
        }
      }, (entry, why) -> { }, clock::nanos, pace));
  }

  /** The test's provider: records the call, answers as {@link #statuses} and {@link #latency} say. */
  private CompletionStage<ProviderResult> call(ProviderCall call) {
    started.add(clock.nanos());
    startedEvents.add(call.eventId());
    if (!answering) {
      CompletableFuture<ProviderResult> answer = new CompletableFuture<>();
      unanswered.add(answer);
      return answer;
    }
    Integer status = statuses.poll();
    ProviderResult result = new ProviderResult.Answered(
        status == null ? 200 : status, status == null ? null : "2", ResponseHeaders.NONE);
    if (latency.isZero()) {
      return CompletableFuture.completedFuture(result);
    }
    CompletableFuture<ProviderResult> answer = new CompletableFuture<>();
    timer.schedule(() -> answer.complete(result), latency.toNanos(), TimeUnit.NANOSECONDS);
    return answer;
  }

  @Test
  void shouldStartQueuedCallsOneIntervalApart() {
    for (int i = 0; i < 5; i++) {
      lane.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(2));
    assertEquals(5, started.size(), "five calls in two seconds at 10/s");
    for (int i = 1; i < started.size(); i++) {
      long gap = started.get(i) - started.get(i - 1);
      assertTrue(gap >= 99 * MS && gap <= 101 * MS, "call " + i + " started " + gap / MS
          + " ms after the previous one, not one interval");
    }
    assertEquals(0, lane.queued());
  }

  @Test
  void shouldKeepItsRateSecondAfterSecond() {
    // Thirty calls at 10/s: a second holds ten slots, and the lane sends ten in every second,
    // each call counted once however its client returned (counted twice, it sent five).
    for (int i = 0; i < 30; i++) {
      lane.offer(entry(i));
    }
    timer.advance(Duration.ofMillis(3_500));
    assertEquals(30, started.size(), "thirty calls in 3.5 s at 10/s");
    for (int i = 10; i < started.size(); i++) {
      assertTrue(started.get(i) - started.get(i - 10) >= 1_000 * MS, "call " + i);
    }
  }

  @Test
  void shouldSendTheFirstCallAloneUntilItHasComeBack() {
    answering = false;
    for (int i = 0; i < 5; i++) {
      lane.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(2));
    assertEquals(1, started.size(), "a cold client would send calls claimed meanwhile together");
    unanswered.get(0).complete(new ProviderResult.Answered(200, null, ResponseHeaders.NONE));
    timer.advance(Duration.ofSeconds(2));
    assertEquals(5, started.size(), "warm: the rest go, four in flight at most");
    assertEquals(4, lane.inFlight());
  }

  @Test
  void shouldStartNoCallUntilA429sRetryAfterHasPassed() {
    statuses.add(429);
    for (int i = 0; i < 3; i++) {
      lane.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(5));
    assertEquals(3, started.size());
    long pause = started.get(1) - started.get(0);
    assertTrue(pause >= 2_000 * MS, "the second call started " + pause / MS
        + " ms after the 429 asked for 2 s");
  }

  @Test
  void shouldReportASlotThatCameUpWithNothingToSendAsWasted() {
    lane.offer(entry(0));
    // Its slot is claimed at once; the entry leaves before the slot comes up (a revocation).
    lane.drop(e -> true);
    timer.advance(Duration.ofSeconds(1));
    assertEquals(List.of(), started);
    assertEquals(List.of("empty"), wasted);
  }

  @Test
  void shouldReportNoWasteWhenEverySlotStartsACall() {
    for (int i = 0; i < 5; i++) {
      lane.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(2));
    assertEquals(5, started.size());
    assertEquals(List.of(), wasted);
  }

  @Test
  void shouldClaimAgainAsSoonAsItsOwnLeaseComesBackWhenConcurrencyIsFull() {
    // One call at a time, each answered in 20 ms, at 40/s (slots 25 ms apart): the lease is back
    // before the next slot, so concurrency never holds a call back. The claim made right after
    // each grant finds the one lease taken and is refused with the leak's poll for other
    // instances' releases (50 ms); this lane's own release must end that wait.
    latency = Duration.ofMillis(20);
    ProviderLane limited = lane(new ProviderLimits(List.of(ProviderLimit.rate(40),
        ProviderLimit.concurrency(1))));
    for (int i = 0; i < 10; i++) {
      limited.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(2));
    assertEquals(10, started.size());
    for (int i = 2; i < started.size(); i++) {
      long gap = started.get(i) - started.get(i - 1);
      assertTrue(gap <= 25 * MS, "call " + i + " started " + gap / MS
          + " ms after the previous one, whose lease came back after 20 ms; one interval is 25 ms");
    }
  }

  @Test
  void shouldTellTheOthersItsBusyTenantsWhileItHasWork() {
    for (int i = 0; i < 10; i++) {
      lane.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(1));
    assertTrue(leak.publications() >= 4, "every 250 ms while it has work, not " + leak.publications());
  }

  @Test
  void shouldPublishNothingForAProviderWithLimitsBeyondTheRate() {
    // Windows set its pace, which a share of the rate does not know: it is not shared, so a
    // publication (a Redis call every 250 ms) would be of no use.
    ProviderLane windowed = lane(new ProviderLimits(List.of(ProviderLimit.rate(RATE),
        ProviderLimit.calls(100, Duration.ofSeconds(10), ProviderLimit.Window.SLIDING))));
    for (int i = 0; i < 10; i++) {
      windowed.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(2));
    assertEquals(10, started.size());
    assertEquals(0, leak.publications());
  }

  @Test
  void shouldClaimAsIfAloneOnceItsShareHasGoneUnconfirmedForASecond() {
    // Another instance, busy on the same leak, holds 99 of the 100 busy std tenants: this lane's
    // share is 1%. Its publications after the first never come back (lost on the way): after a
    // second the share is not trusted, and the lane claims as one alone would.
    LocalLeakyBucket shared = new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros);
    AtomicBoolean answeredOnce = new AtomicBoolean();
    PublishingLeak mine = new PublishingLeak(shared, (member, busy) -> answeredOnce.getAndSet(true)
        ? new CompletableFuture<>() : CompletableFuture.completedFuture(Map.of("std", 100)));
    ProviderLane capped = lane(ProviderLimits.rateOnly(RATE), mine, 500_000);
    ProviderLane other = lane(ProviderLimits.rateOnly(RATE),
        new PublishingLeak(shared, (member, busy) -> CompletableFuture.completedFuture(busy)),
        500_000);
    for (int i = 0; i < 40; i++) {
      capped.offer(entry("mine-" + i));
      other.offer(entry("other-" + i));
    }
    timer.advance(Duration.ofSeconds(3));
    int mineBefore = (int) startedEvents.stream().filter(e -> e.startsWith("mine")).count();
    timer.advance(Duration.ofSeconds(3));
    long mineAfter = startedEvents.stream().filter(e -> e.startsWith("mine")).count() - mineBefore;
    assertTrue(mineAfter >= 10, "in 3 s at 10/s beside one other lane: " + mineAfter
        + " calls; a share of 1% would allow none");
  }

  @Test
  void shouldKeepAConcurrencyLimitSharedByTwoInstancesBusy() {
    // Two instances on one leak, 2 calls at once between them, each call 20 ms: the limit allows
    // 100 calls a second, and only each lane knows when its own lease comes back.
    latency = Duration.ofMillis(20);
    LocalLeakyBucket shared = new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros);
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(100),
        ProviderLimit.concurrency(2)));
    for (String instance : List.of("a", "b")) {
      ProviderLane lane = lane(limits, new PublishingLeak(shared,
          (member, busy) -> CompletableFuture.completedFuture(busy)), 100_000);
      for (int i = 0; i < 100; i++) {
        lane.offer(entry(instance + "-" + i));
      }
    }
    timer.advance(Duration.ofSeconds(1));
    assertTrue(started.size() >= 95, started.size() + " calls in a second; the limit allows 100");
  }

  @Test
  void shouldMakeItsFirstClaimOnlyOnceToldToStart() {
    lane.startAfter(Duration.ofMillis(400).toNanos());
    long opened = clock.nanos();
    lane.offer(entry(0));
    lane.offer(entry(1));
    timer.advance(Duration.ofSeconds(1));
    assertEquals(2, started.size());
    assertTrue(started.get(0) - opened >= 400 * MS, "the first call started "
        + (started.get(0) - opened) / MS + " ms after the lane opened, before its spread start");
  }

  @Test
  void shouldPublishNoBusyTenantsWhenItHoldsOneTenantOnly() {
    lane.oneTenant();
    for (int i = 0; i < 10; i++) {
      lane.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(2));
    assertEquals(10, started.size());
    assertEquals(0, leak.publications(), "an endpoint's lane holds its one tenant: nothing to share");
  }

  @Test
  void shouldClaimAtItsRateTimesTheDispatchersPaceFactor() {
    // At half pace a 10/s lane claims slots 200 ms apart; back at full pace, 100 ms.
    SetPace pace = new SetPace();
    pace.factor = 0.5;
    ProviderLane paced = lane(ProviderLimits.rateOnly(RATE), leak, 100_000, pace,
        this::call);
    for (int i = 0; i < 10; i++) {
      paced.offer(entry(i));
    }
    timer.advance(Duration.ofMillis(950));
    assertEquals(5, started.size(), "five calls in 0.95 s at half of 10/s");
    for (int i = 1; i < started.size(); i++) {
      long gap = started.get(i) - started.get(i - 1);
      assertTrue(gap >= 199 * MS && gap <= 201 * MS, "call " + i + " started " + gap / MS
          + " ms after the previous one, not 200 ms");
    }
    pace.factor = 1;
    timer.advance(Duration.ofMillis(1_000));
    assertEquals(10, started.size());
    long gap = started.get(9) - started.get(8);
    assertTrue(gap >= 99 * MS && gap <= 101 * MS, "at full pace again: " + gap / MS + " ms");
  }

  @Test
  void shouldNeverCallFasterThanItsRateWhileThePaceMovesUpAndDown() {
    SetPace pace = new SetPace();
    ProviderLane paced = lane(ProviderLimits.rateOnly(RATE), leak, 100_000, pace,
        this::call);
    for (int i = 0; i < 40; i++) {
      paced.offer(entry(i));
    }
    // The factor flips between 0.3 and 1 every 130 ms, across slots claimed at either.
    Runnable[] flip = new Runnable[1];
    flip[0] = () -> {
      pace.factor = pace.factor == 1 ? 0.3 : 1;
      timer.schedule(flip[0], 130, TimeUnit.MILLISECONDS);
    };
    timer.schedule(flip[0], 130, TimeUnit.MILLISECONDS);
    timer.advance(Duration.ofSeconds(6));
    assertTrue(started.size() >= 20, started.size() + " calls");
    for (int i = 1; i < started.size(); i++) {
      assertTrue(started.get(i) - started.get(i - 1) >= 75 * MS, "call " + i + " started "
          + (started.get(i) - started.get(i - 1)) / MS + " ms after the previous one");
    }
    for (int i = 10; i < started.size(); i++) {
      assertTrue(started.get(i) - started.get(i - 10) >= 1_000 * MS,
          "eleven calls within a second at 10/s, up to call " + i);
    }
  }

  @Test
  void shouldSlowDownOnceItsSlotsHaveFiredLateForASecond() {
    // Every task of the timer runs 60 ms late (a starved process): at 20/s each slot is then too
    // late to use, and 50 ms counts as late. After two late half-seconds the pace is cut to 0.75,
    // and once the timer is on time again the lane's calls are 1 / 15 s apart, not 1 / 20 s.
    DispatcherPace pace = new DispatcherPace(clock::nanos);
    timer.runLate(60_000_000);
    ProviderLane starved = lane(ProviderLimits.rateOnly(20), leak, 100_000, pace, this::call);
    for (int i = 0; i < 100; i++) {
      starved.offer(entry(i));
    }
    timer.advance(Duration.ofMillis(990));
    assertEquals(1, pace.factor(), "one late half-second does not cut");
    timer.advance(Duration.ofMillis(210));
    assertEquals(0.75, pace.factor(), 1e-9);
    timer.runLate(0);
    timer.advance(Duration.ofMillis(300));
    int before = started.size();
    timer.advance(Duration.ofMillis(1_000));
    for (int i = before + 1; i < started.size(); i++) {
      long gap = started.get(i) - started.get(i - 1);
      assertTrue(gap >= 66 * MS, "call " + i + " started " + gap / MS + " ms after the "
          + "previous one; at 0.75 of 20/s slots are 66.7 ms apart");
    }
    assertTrue(started.size() - before >= 14, (started.size() - before) + " calls in 1 s");
  }

  @Test
  void shouldKeepFullPaceWhileAProviderIsSlow() {
    // One provider answers after 2 s, four calls in flight; another answers at once. Calls are
    // asynchronous: the slow ones hold the slow lane's calls in flight, not the timer, and they
    // come no slower than that lane's usual, so the pace stays whole and the other lane keeps
    // its 10/s.
    DispatcherPace pace = new DispatcherPace(clock::nanos);
    ProviderLane slow = lane(ProviderLimits.rateOnly(RATE), separateLeak(), 100_000, pace,
        call -> {
          CompletableFuture<ProviderResult> answer = new CompletableFuture<>();
          Runnable answers = () -> answer.complete(new ProviderResult.Answered(200, null));
          timer.schedule(answers, 2, TimeUnit.SECONDS);
          return answer;
        });
    ProviderLane fast = lane(ProviderLimits.rateOnly(RATE), separateLeak(), 100_000, pace,
        this::call);
    for (int i = 0; i < 60; i++) {
      slow.offer(entry("slow-" + i));
      fast.offer(entry(i));
    }
    timer.advance(Duration.ofSeconds(5));
    assertEquals(1, pace.factor());
    assertTrue(started.size() >= 49, started.size() + " calls of the fast lane in 5 s at 10/s");
    assertEquals(4, slow.inFlight());
  }

  /**
   * The provider refuses the first call and the first one after its 2 s pause (a repeat, within
   * the leak's 10 s recovery); {@code stalledAtMillis} after the start a slot of the dispatcher
   * fired late (null: never). Returns the gaps between the calls started after the second pause, in ms.
   */
  private List<Long> gapsAfterARepeated429(Long stalledAtMillis) {
    SetPace pace = new SetPace();
    long start = clock.nanos();
    pace.stalledAtNanos = stalledAtMillis == null ? null : start + stalledAtMillis * MS;
    ProviderLane refused = lane(ProviderLimits.rateOnly(RATE), leak, 100_000, pace, this::call);
    statuses.add(429);
    statuses.add(429);
    for (int i = 0; i < 30; i++) {
      refused.offer(entry(i));
    }
    timer.advance(Duration.ofMillis(5_000));
    assertTrue(started.size() >= 4, started.size() + " calls");
    assertTrue(started.get(1) - start >= 2_000 * MS, "the second call waited out the first 429");
    assertTrue(started.get(2) - started.get(1) >= 2_000 * MS, "and the third the second 429");
    List<Long> gaps = new ArrayList<>();
    for (int i = 3; i < started.size(); i++) {
      gaps.add((started.get(i) - started.get(i - 1)) / MS);
    }
    return gaps;
  }

  @Test
  void shouldHalveItsRateWhenTheProviderRefusesAgainAfterItsPause() {
    // A 429 to a call claimed after the previous 429's pause ended is evidence that the rate is
    // too high: the leak's rate is halved (10/s to 5/s), and climbs back over its recovery.
    for (long gap : gapsAfterARepeated429(null)) {
      assertTrue(gap >= 150, gap + " ms between calls after the repeated 429; cut to 5/s and "
          + "climbing back over the leak's 10 s recovery: 150 ms or more in these 2 s");
    }
  }

  @Test
  void shouldNotCutItsRateForA429ToACallSentWithinASecondOfAStallOfThisDispatcher() {
    // Issue 39: a stall of the process (a busy machine, a GC) lets calls leave late and together,
    // and a strict provider refuses the bunch. Such a 429 says nothing of the rate: it pauses the
    // lane and the leak for its Retry-After, and the rate stays whole. Seen from outside, two
    // such 429s 10.8 s apart held a provider at 24 of its 48/s for 30 s.
    List<Long> gaps = gapsAfterARepeated429(1_500L);
    for (long gap : gaps) {
      assertTrue(gap >= 99 && gap <= 101, "calls " + gaps + " ms apart; the rate was not cut: 100 ms");
    }
  }

  @Test
  void shouldStillCutItsRateWhenTheDispatcherStalledOnlyLongBeforeTheRefusedCall() {
    // The second 429 answers a call handed over at 2 s; the process stalled at 0.5 s, more than
    // a second before it: the calls around it left on time, and the repeat counts.
    for (long gap : gapsAfterARepeated429(500L)) {
      assertTrue(gap >= 150, gap + " ms between calls; the repeat 429 still cuts to 5/s");
    }
  }

  /**
   * The provider answers each call as {@code plan} says, in order ({@code status, latency ms}),
   * then 200 at once: returns the gaps, in ms, between the first six calls started after the
   * last 429's 2 s pause.
   */
  private List<Long> gapsAfter(long[][] plan) {
    Deque<long[]> answers = new ArrayDeque<>(List.of(plan));
    ProviderLane planned = lane(ProviderLimits.rateOnly(RATE), leak, 100_000, new SetPace(), call -> {
      started.add(clock.nanos());
      long[] next = answers.poll();
      int status = next == null ? 200 : (int) next[0];
      ProviderResult result = new ProviderResult.Answered(status, status == 429 ? "2" : null,
          ResponseHeaders.NONE);
      CompletableFuture<ProviderResult> answer = new CompletableFuture<>();
      Runnable answering = () -> answer.complete(result);
      timer.schedule(answering, next == null ? 0 : next[1], TimeUnit.MILLISECONDS);
      return answer;
    });
    for (int i = 0; i < 40; i++) {
      planned.offer(entry(i));
    }
    timer.advance(Duration.ofMillis(6_000));
    int resumed = plan.length;
    assertTrue(started.size() >= resumed + 6, started.size() + " calls");
    assertTrue(started.get(resumed) - started.get(resumed - 1) >= 2_000 * MS,
        "the call after the last 429 waited out its pause");
    List<Long> gaps = new ArrayList<>();
    for (int i = resumed + 1; i < resumed + 6; i++) {
      gaps.add((started.get(i) - started.get(i - 1)) / MS);
    }
    return gaps;
  }

  @Test
  void shouldNotCutItsRateForA429ToACallSentWithinASecondOfAnAnswerHeldUp() {
    // Issue 39, seen from outside: after a gap, 3 to 5 calls reached the provider within a
    // millisecond (held on their way: this process's HTTP client, or the provider's own event
    // loop, short of CPU), and a call a second later was refused. Their answers came that much
    // slower than the lane's usual; the timer was on time. A 429 then pauses, and cuts nothing.
    List<Long> gaps = gapsAfter(new long[][] {{429, 0}, {200, 0}, {200, 60}, {429, 0}});
    for (long gap : gaps) {
      assertTrue(gap >= 99 && gap <= 101, "calls " + gaps + " ms apart; the rate was not cut: 100 ms");
    }
  }

  @Test
  void shouldCutItsRateForARepeated429WhenTheAnswersBeforeItCameAsUsual() {
    List<Long> gaps = gapsAfter(new long[][] {{429, 0}, {200, 0}, {200, 30}, {429, 0}});
    for (long gap : gaps) {
      assertTrue(gap >= 150, "calls " + gaps + " ms apart; 30 ms slower is no bunch, the repeat "
          + "cuts to 5/s");
    }
  }

  private LeakyBucket separateLeak() {
    return new PublishingLeak(new LocalLeakyBucket(new LeakConfig(0.5, 10_000_000), 1, clock::micros),
        (member, busyByTier) -> CompletableFuture.completedFuture(busyByTier));
  }

  @Test
  void shouldStartNothingOnceClosed() {
    lane.offer(entry(0));
    lane.close();
    timer.advance(Duration.ofSeconds(1));
    assertEquals(List.of(), started);
  }

  private static DispatchEntry entry(int i) {
    return entry("e" + i);
  }

  private static DispatchEntry entry(String id) {
    String json = "{\"id\":\"" + id + "\",\"tenant\":\"t\",\"provider\":\"api\"}";
    return new DispatchEntry(new TopicPartition("ready", 0), 0, 1, "t".getBytes(UTF_8),
        json.getBytes(UTF_8), new RecordHeaders(), new WorkEvent(id, "t", "api", 1, null,
        null, null, Map.of()), "std", 0, null);
  }
}
