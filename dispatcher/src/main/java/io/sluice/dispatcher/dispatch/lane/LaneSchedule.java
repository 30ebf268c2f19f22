package io.sluice.dispatcher.dispatch.lane;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The decisions of one {@link ProviderLane}, without its threads and I/O: when it may claim leak
 * slots and how many, what each slot reserves, what a due slot does, and how fast the lane drains.
 * The lane holds its fair queue, talks to the leak and the provider, and asks this class at every
 * step.
 *
 * <p>Pure: every instant is passed in, in nanoseconds of the lane's monotonic clock
 * ({@code System.nanoTime} in production); leak instants in microseconds of the leak's clock. Not
 * thread-safe: the lane calls it under its monitor.
 *
 * <h2>Claims</h2>
 * <ul>
 *   <li><b>One at a time.</b> While a claim is out, no other is sent: its slots would be counted
 *       twice against the same queue.
 *   <li><b>Sized to the work and the room.</b> {@code min(queued - pending, room - inFlight -
 *       pending)}, where {@code pending} counts slots claimed and not yet due. Slots are never
 *       claimed for events that are not there or for calls that could not start.
 *   <li><b>The first call goes alone.</b> Until a call has come back and been judged,
 *       {@code room} is 1 (see {@link ProviderLane}: a cold HTTP client would send calls claimed
 *       on time together once it is ready).
 *   <li><b>Not before the leak or the provider allows.</b> A claim that granted nothing says when
 *       a slot frees ({@code retryAt}); a claim that failed (the leak does not answer) is retried
 *       after {@value #LEAK_RETRY_MILLIS} ms; a provider's Retry-After pauses the lane. Until
 *       then claiming is pointless, and without this every offer would ask the leak again; but a
 *       concurrency lease of this lane coming back ends the wait ({@link #leaseReturned}).
 *   <li><b>No more than this instance's share</b> of a leak other instances are busy on too
 *       ({@link ClaimAllowance}, {@link io.sluice.dispatcher.fair.GlobalShare}): that is what
 *       makes weighted fairness hold across instances and not only inside each; nor, for an
 *       endpoint lane of a provider with a {@code totalRate}, more than its part of the total
 *       ({@link #shareTotal}), which is what shares the total by tier weight.
 *   <li><b>Each slot reserves the dearest cost queued</b> when the limits count cost: the event
 *       is picked only when the slot fires, and any queued event may be the one.
 * </ul>
 *
 * <h2>Due slots</h2>
 * A slot becomes due on the {@link SlotPacer}'s schedule: fired on time, made to wait when it
 * would follow the previous call too closely or make more calls in a second than the slots hold,
 * dropped when it could only be used more than
 * {@code tolerance} (half an interval, at most the limits' window margin, at least 2 ms) late. A slot that comes up while the lane is
 * paused or closed is dropped too: a leaky bucket does not bank unused slots, so a dropped slot is
 * spent, never saved.
 */
final class LaneSchedule {
  /** How long after a claim the leak did not answer the lane tries again. */
  static final long LEAK_RETRY_MILLIS = 250;
  /**
   * The longest a claim that granted nothing waits before the lane asks again, whatever the leak
   * said: the limits may have risen meanwhile (a learned limit faded or was raised, a reload), and
   * nothing else wakes a lane whose events are all queued. One claim a second at most, per lane
   * held back by a far window.
   */
  static final long MAX_NO_SLOT_WAIT_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** The longest a claim held back by the share waits before the lane looks again. */
  static final long MAX_SHARE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
  /** Weight of each call's latency in the moving average ({@code 1/16}). */
  private static final int LATENCY_WEIGHT = 16;
  /** Weight of each answer in the lane's usual latency ({@link #answered}). */
  static final int USUAL_WEIGHT = 64;

  private final int maxInFlight;
  private final SlotPacer pacer;
  /** The rate the pacer is tuned for; a changed rate retunes it ({@link #retune}). */
  private double ratePerSecond;
  /** The smallest window margin of the limits the pacer is tuned for ({@code MAX_VALUE}: none). */
  private long windowMarginNanos = Long.MAX_VALUE;
  /** The costs of the queued entries, as a multiset (cost to count): the dearest is reserved. */
  private final TreeMap<Integer, Integer> queuedCosts = new TreeMap<>();
  /** A call of this lane has come back and been judged: the HTTP client is warm. */
  private boolean warm;
  private boolean claiming;
  private boolean closed;
  private int inFlight;
  private int pendingSlots;
  /** Moving average of call latency, 0 until a call has come back. */
  private double latencyNanos;
  /** Slow moving average of answered calls' latency, 0 until one was answered ({@link #answered}). */
  private double usualNanos;
  /** Before this instant no call starts (the provider's Retry-After, as seen here). */
  private long pausedUntilNanos;
  /** Before this instant claiming again is pointless (the leak said when, or did not answer). */
  private long claimNotBeforeNanos;
  /** This instance's part of a leak shared with other instances ({@link ClaimAllowance}). */
  private final ClaimAllowance allowance;
  /** The leak's effective rate as its last answer spaced slots (below the configured after 429s); 0 before one. */
  private double leakRatePerSecond;
  /**
   * This endpoint lane's part of its provider's total line ({@code TotalShares}), as
   * {@link ClaimAllowance} keeps a part of a leak: uncapped until a part is given.
   */
  private final ClaimAllowance totalAllowance;
  /** A part of a provider's total was given ({@link #shareTotal}). */
  private boolean totalShared;
  /** The total line's rate, which sets how late a slot may be used too; 0: none. */
  private double totalPerSecond;
  /** A claim was held back by the share: wake the lane after this long (0: none). */
  private long shareWaitNanos;

  /**
   * @param ratePerSecond the provider's rate, which sets how late a slot may be used
   * @param maxInFlight   calls of the lane at once, once warm
   * @param nowNanos      the lane's clock now: it may claim at once
   */
  public LaneSchedule(double ratePerSecond, int maxInFlight, long nowNanos) {
    this.ratePerSecond = ratePerSecond;
    this.maxInFlight = maxInFlight;
    this.pacer = new SlotPacer(toleranceNanos(ratePerSecond), slackNanos(ratePerSecond));
    this.pausedUntilNanos = nowNanos;
    this.claimNotBeforeNanos = nowNanos;
    this.allowance = new ClaimAllowance(nowNanos);
    this.totalAllowance = new ClaimAllowance(nowNanos);
  }

  /**
   * A slot used at most {@code tolerance} after its time keeps the calls started in any window
   * {@code T} within {@code rate * (T + tolerance) + 1}, which is {@code rate * T + 1} for every
   * window of whole intervals at half an interval. Floored at 2 ms for very fast providers, whose
   * intervals are shorter than ordinary timer jitter.
   */
  static long toleranceNanos(double ratePerSecond) {
    return toleranceNanos(ratePerSecond, Long.MAX_VALUE);
  }

  /**
   * The tolerance for a provider with calls or cost windows too: at most the smallest window
   * {@code margin}. A window's log keeps each slot for {@code per + margin}, so two calls a window
   * apart arrive at least {@code per} apart, as the provider counts, only while their delays
   * (arrival less slot) differ by at most the margin. A slot used later than that could land
   * inside the window of a later call that left on time, at the one moment it matters: when the
   * window is full, which is the steady state at a binding window. Dropping it costs one unit of
   * that window (the log keeps the slot); sending it could cost a 429. Half an interval alone
   * allows 60 ms at 8.3/s against the default margin of 20 ms. Still at least 2 ms: a margin
   * below ordinary timer jitter cannot be kept by dropping.
   */
  static long toleranceNanos(double ratePerSecond, long windowMarginNanos) {
    return Math.max(TimeUnit.MILLISECONDS.toNanos(2),
        Math.min((long) (0.5e9 / ratePerSecond), windowMarginNanos));
  }

  /**
   * How much closer than one interval a hand-off may follow the previous one ({@link SlotPacer}):
   * a quarter of an interval, which is also how fast a late hand-off's lateness wears off over the
   * slots that follow it.
   *
   * <p>Why that much: a slot held for spacing is woken by the timer a second time, and each wake-up
   * is late by the timer's own delay. Lateness carried forward shrinks by {@code slack} per slot
   * and grows by that delay, so when the delay is larger than the slack it adds up until a slot is
   * dropped. With 1 ms (as before), one instance alone at 48/s on a busy 2-core machine, where a
   * wake-up is often 3 to 10 ms late, held 27-39% of its slots for spacing and dropped one slot in
   * 40 to 75, most of them in the seconds after start while the JIT warms up (a slot held for
   * spacing, then woken 5 ms late, past half an interval). A quarter interval absorbs wake-ups
   * late by up to a quarter interval.
   *
   * <p>What it costs in strictness: nothing the window bound counts. Every slot is still handed
   * over at or after its time and at most {@code tolerance} (half an interval) late, which is what
   * bounds the calls in any window. The slack is also how long the client may take to return
   * before its request counts as sent late (see {@link SlotPacer#handed}), so a request leaves at
   * most three quarters of an interval after its slot: less than one interval, so the calls in
   * any window of whole intervals still number at most {@code rate * T + 1}. One lane's
   * consecutive hand-offs stay at least three quarters of an interval apart.
   */
  static long slackNanos(double ratePerSecond) {
    return (long) (0.25e9 / ratePerSecond);
  }

  /**
   * The limits now enforce {@code ratePerSecond} (a reload, a learned limit) and windows whose
   * smallest margin is {@code windowMarginNanos} ({@code Long.MAX_VALUE}: no window): retunes the
   * pacer. A higher rate ends, at {@code nowNanos}, a wait for the leak's next slot set at the
   * lower one: that slot was spaced at the old interval.
   */
  void retune(double ratePerSecond, long windowMarginNanos, long nowNanos) {
    if (ratePerSecond > this.ratePerSecond && claimNotBeforeNanos - nowNanos > 0) {
      claimNotBeforeNanos = nowNanos;
    }
    if (ratePerSecond != this.ratePerSecond || windowMarginNanos != this.windowMarginNanos) {
      this.ratePerSecond = ratePerSecond;
      this.windowMarginNanos = windowMarginNanos;
      retunePacer();
    }
  }

  /**
   * A slot is used at most half an interval late of the faster line it is a slot of: the lane's
   * leak, or its provider's total ({@link #shareTotal}), whose slots are those of every endpoint
   * lane and so lie closer together. The hand-off spacing stays the lane's own.
   */
  private void retunePacer() {
    pacer.retune(toleranceNanos(Math.max(ratePerSecond, totalPerSecond), windowMarginNanos),
        slackNanos(ratePerSecond));
  }

  /** An entry of {@code cost} joined the queue. */
  void queued(int cost) {
    queuedCosts.merge(cost, 1, Integer::sum);
  }

  /** An entry of {@code cost} left the queue (called, evicted, dropped or unfit). */
  void unqueued(int cost) {
    queuedCosts.computeIfPresent(cost, (c, n) -> n == 1 ? null : n - 1);
  }

  /**
   * Whether an entry queued costs more than {@code largestSendable}, the smallest cost window the
   * limits allow now: one lowered limit (learned, reloaded) makes it unsendable for good, and at
   * the head of the queue it would block the lane; the lane takes such entries out.
   */
  boolean holdsCostAbove(long largestSendable) {
    return !queuedCosts.isEmpty() && queuedCosts.lastKey() > largestSendable;
  }

  /** Whether no claim is out and the lane is open: only then is a claim worth deciding. */
  boolean mayClaim() {
    return !closed && !claiming;
  }

  /**
   * How many slots to claim now, with {@code queued} entries queued: 0 while a claim is out, the
   * lane is closed or paused, or the leak said to wait; else the work that has no slot yet, at most
   * the room in flight without one (see the class comment). A positive answer means a claim is
   * out from now on, until {@link #claimAnswered} or {@link #claimFailed}.
   */
  int claimSlots(int queued, long nowNanos) {
    if (!mayClaim() || nowNanos - claimNotBeforeNanos < 0 || nowNanos - pausedUntilNanos < 0) {
      return 0;
    }
    int room = warm ? maxInFlight : 1;
    int wanted = Math.min(queued - pendingSlots, room - inFlight - pendingSlots);
    if (wanted <= 0) {
      return 0;
    }
    wanted = totalAllowance.allows(allowance.allows(wanted, nowNanos), nowNanos);
    if (wanted <= 0) {
      // This instance has claimed its share of a leak others are busy on (or this endpoint its
      // part of the provider's total): not before one more slot is its due. Bounded, so a share
      // that changes meanwhile is seen soon.
      long waitNanos = Math.min(MAX_SHARE_WAIT_NANOS, Math.max(TimeUnit.MILLISECONDS.toNanos(1),
          Math.max(allowance.nanosUntilOne(nowNanos), totalAllowance.nanosUntilOne(nowNanos))));
      claimNotBeforeNanos = nowNanos + waitNanos;
      shareWaitNanos = waitNanos;
      return 0;
    }
    claiming = true;
    return wanted;
  }

  /**
   * The cost each slot of the next claim reserves: the dearest queued (any of them may be picked
   * when the slot fires), 1 with nothing queued or when {@code countsCost} is false.
   */
  long slotCost(boolean countsCost) {
    return countsCost && !queuedCosts.isEmpty() ? queuedCosts.lastKey() : 1;
  }

  /**
   * The cost each slot of a batching lane's next claim reserves: the dearest {@code maxEvents}
   * queued together (any of them may go in the slot's call), at most {@code cap} (the smallest
   * cost window: a claim for more could never be granted); what the call does not use is given
   * back before it starts, as for one event.
   */
  long batchSlotCost(boolean countsCost, int maxEvents, long cap) {
    if (!countsCost || queuedCosts.isEmpty()) {
      return 1;
    }
    long sum = 0;
    int left = maxEvents;
    for (Map.Entry<Integer, Integer> e : queuedCosts.descendingMap().entrySet()) {
      int n = Math.min(left, e.getValue());
      sum += (long) e.getKey() * n;
      left -= n;
      if (left == 0 || sum >= cap) {
        break;
      }
    }
    return Math.max(queuedCosts.lastKey(), Math.min(sum, cap));
  }

  /**
   * The claim sent at {@code sentNanos} came back at {@code receivedNanos}; the leak decided at
   * {@code leakNowMicros} on its clock. Another claim may go out.
   */
  void claimAnswered(long sentNanos, long receivedNanos, long leakNowMicros) {
    claiming = false;
    pacer.answered(sentNanos, receivedNanos, leakNowMicros);
  }

  /** The answered claim granted {@code slots}: they are pending until each comes up. */
  void granted(int slots) {
    pendingSlots += slots;
  }

  /**
   * What an answered claim says about the leak's other users: it granted {@code granted} slots
   * starting at {@code firstSlotMicros}, {@code intervalMicros} apart, when the leak's clock read
   * {@code leakNowMicros}. They count against this lane's share; and a first slot within one
   * interval of now means nobody holds the leak's next slot, so the share must not hold this lane
   * back ({@link ClaimAllowance#leakIdle}).
   */
  void claimedFromShare(int granted, long firstSlotMicros, long intervalMicros,
      long leakNowMicros, long nowNanos) {
    allowance.took(granted, nowNanos);
    totalAllowance.took(granted, nowNanos);
    if (intervalMicros > 0) {
      leakRatePerSecond = 1e6 / intervalMicros;
    }
    if (granted > 0 && firstSlotMicros - leakNowMicros < intervalMicros) {
      allowance.leakIdle(nowNanos);
    }
    if (granted > 0 && totalShared && firstSlotMicros <= leakNowMicros) {
      // The joint slot is now: the total's next slot was free before it, its capacity unused.
      totalAllowance.leakIdle(nowNanos);
    }
  }

  /**
   * This endpoint lane's part of its provider's total line is {@code partPerSecond} of
   * {@code totalPerSecond} calls a second ({@code TotalShares}): it claims no more than that, plus
   * {@value ClaimAllowance#SLACK} of it, unless a claim finds the total idle (its first slot is
   * the leak's now: nobody held the total's next slot), which fills the allowance up. Only then:
   * a first slot a little ahead says nothing, since the lanes claim the total's slots up to a
   * lookahead ahead, each when its own allowance lets it (a looser test, "within one total
   * interval", refilled lanes whose claims came just after another's and broke the split). A
   * part of the whole total is no cap. From then on a slot is used at most half a total interval
   * late: a slot of the total used later crowds the next endpoint's.
   */
  void shareTotal(double partPerSecond, double totalPerSecond, long lookaheadNanos,
      long nowNanos) {
    totalShared = true;
    totalAllowance.share(partPerSecond / totalPerSecond, totalPerSecond, lookaheadNanos, nowNanos);
    if (totalPerSecond != this.totalPerSecond) {
      this.totalPerSecond = totalPerSecond;
      retunePacer();
    }
  }

  /**
   * This lane's share of a leak shared with other instances is now {@code share}
   * ({@link io.sluice.dispatcher.fair.GlobalShare#instanceShare}); {@code 1} or more: no cap.
   */
  void shareLeak(double share, long lookaheadNanos, long nowNanos) {
    allowance.share(share, leakRatePerSecond > 0 ? leakRatePerSecond : ratePerSecond,
        lookaheadNanos, nowNanos);
  }

  /** No share is known (none yet, or a stale one): claim freely. */
  void unshared() {
    allowance.uncap();
  }

  /**
   * How long the lane should wait before kicking again because its share held a claim back (0:
   * it did not since the last call). Reading it clears it: one wake-up per hold.
   */
  long takeShareWait() {
    long wait = shareWaitNanos;
    shareWaitNanos = 0;
    return wait;
  }

  /**
   * The answered claim granted nothing, and the leak's next slot frees at {@code retryAtMicros}
   * (its clock read {@code leakNowMicros}): no claim before then, at least 1 ms after
   * {@code receivedNanos}, at most {@link #MAX_NO_SLOT_WAIT_NANOS}. Returns how long to wait
   * before kicking the lane again.
   */
  long noSlotsUntil(long receivedNanos, long leakNowMicros, long retryAtMicros) {
    long waitNanos = Math.min(MAX_NO_SLOT_WAIT_NANOS,
        TimeUnit.MICROSECONDS.toNanos(Math.max(1000, retryAtMicros - leakNowMicros)));
    claimNotBeforeNanos = receivedNanos + waitNanos;
    return waitNanos;
  }

  /** No claim before {@code atNanos} (a new endpoint lane's first slot, spread from the others'). */
  void holdClaims(long atNanos) {
    if (atNanos - claimNotBeforeNanos > 0) {
      claimNotBeforeNanos = atNanos;
    }
  }

  /**
   * One of this lane's concurrency leases is back in the leak, at {@code nowNanos}: a wait set by
   * a claim that granted nothing ends now. When concurrency refused that claim, its
   * {@code retryAt} was no promise but a poll (at most 50 ms: when another instance releases is
   * unknown to the leak), and a lease this lane gave back frees a slot at once: waiting the poll
   * out held a lane at one lease, with 20 ms calls, to one call every 50 ms instead of every
   * interval. When a window refused it, the next claim is refused again with the same
   * {@code retryAt}: one claim more per lease returned, and a lane holds few.
   */
  void leaseReturned(long nowNanos) {
    if (claimNotBeforeNanos - nowNanos > 0) {
      claimNotBeforeNanos = nowNanos;
    }
  }

  /**
   * The claim failed (the leak did not answer): another may go out, not before
   * {@value #LEAK_RETRY_MILLIS} ms. Returns how long to wait before kicking the lane again.
   */
  long claimFailed(long nowNanos) {
    claiming = false;
    long waitNanos = TimeUnit.MILLISECONDS.toNanos(LEAK_RETRY_MILLIS);
    claimNotBeforeNanos = nowNanos + waitNanos;
    return waitNanos;
  }

  /** The local instant a slot at {@code slotMicros} on the leak's clock is due. */
  long dueNanos(long slotMicros) {
    return pacer.dueNanos(slotMicros);
  }

  /**
   * The provider asked, at {@code nowNanos}, that no call start within {@code retryAfterMillis}:
   * no claim and no call until then. A shorter pause never cuts a longer one short.
   */
  void pause(long nowNanos, long retryAfterMillis) {
    long resume = nowNanos + TimeUnit.MILLISECONDS.toNanos(retryAfterMillis);
    if (resume - pausedUntilNanos > 0) {
      pausedUntilNanos = resume;
    }
  }

  /**
   * A slot due at {@code dueNanos}, of a claim whose slots are {@code intervalNanos} apart, comes
   * up at {@code nowNanos}. Unless it must wait, it is no longer pending: fired (the lane then
   * {@link #started} a call, or spends it if nothing queued may use it) or dropped.
   */
  SlotPacer.Decision slotDue(long nowNanos, long dueNanos, long intervalNanos) {
    SlotPacer.Decision decision = closed || nowNanos - pausedUntilNanos < 0
        ? new SlotPacer.Decision.Drop(nowNanos - dueNanos)
        : pacer.decide(nowNanos, dueNanos, intervalNanos);
    if (!(decision instanceof SlotPacer.Decision.WaitUntil)) {
      pendingSlots--;
    }
    return decision;
  }

  /**
   * A fired slot's call was handed to the provider's client at {@code nowNanos}. Returns its
   * ticket, for {@link #cameBack}.
   */
  long started(long nowNanos) {
    inFlight++;
    return pacer.handed(nowNanos, nowNanos);
  }

  /**
   * The call of {@code ticket} came back (answered, timed out or failed) at {@code nowNanos}: the
   * provider saw it by then ({@link SlotPacer}, "Anchored on the answers").
   */
  void cameBack(long ticket, long nowNanos) {
    pacer.answeredAt(ticket, nowNanos);
  }

  /**
   * The client, handed a call at {@code startedNanos}, returned at {@code returnedNanos}: a cold
   * one that took long sent its request as it returned, and the next hand-off is spaced from then.
   */
  void clientReturned(long startedNanos, long returnedNanos) {
    pacer.returned(startedNanos, returnedNanos);
  }

  /** A call came back after {@code latencyNanos}. */
  void ended(long latencyNanos) {
    inFlight--;
    this.latencyNanos = this.latencyNanos == 0 ? latencyNanos
        : this.latencyNanos + (latencyNanos - this.latencyNanos) / LATENCY_WEIGHT;
  }

  /**
   * A call of this lane was answered after {@code latencyNanos}: how much slower that is than the
   * lane's usual answer (negative: faster; 0 for the first), the usual being a slow moving average
   * (weight {@code 1/}{@value #USUAL_WEIGHT}) of its answers, which the answer then joins. A
   * provider that is always slow has a high usual and no excess; an answer held up in this
   * process comes slower than its lane's usual, whatever the provider ({@link PaceGovernor}).
   * Timeouts and failed connections are left out.
   */
  long answered(long latencyNanos) {
    if (usualNanos == 0) {
      usualNanos = Math.max(1, latencyNanos);
      return 0;
    }
    long excess = (long) (latencyNanos - usualNanos);
    usualNanos += (latencyNanos - usualNanos) / USUAL_WEIGHT;
    return excess;
  }

  /**
   * A call's answer has been judged and learned from: the lane is warm. Not sooner: a claim made
   * between the answer and its judging (an offer kicks the lane) would pace the next calls at
   * limits the answer has just lowered.
   */
  void judged() {
    warm = true;
  }

  /** Claims nothing more, and drops every slot that comes up; calls in flight end on their own. */
  void close() {
    closed = true;
  }

  boolean closed() {
    return closed;
  }

  /**
   * When the lane may call again: the end of its provider's Retry-After, or of a hold (a missing
   * credential, a disabled endpoint until its probe); in the past when it may now.
   */
  long readyAtNanos() {
    return pausedUntilNanos;
  }

  /** Whether the provider's Retry-After still holds calls back at {@code nowNanos}. */
  boolean paused(long nowNanos) {
    return nowNanos - pausedUntilNanos < 0;
  }

  int inFlight() {
    return inFlight;
  }

  /**
   * How fast the lane can empty its buffer: {@code sustainedPerSecond} (what the limits allow in
   * the long run), or fewer when calls are slow enough that {@code maxInFlight} binds first
   * ({@code maxInFlight / latency}). A provider whose calls take 2 s with 2 in flight drains 1
   * event a second whatever its configured rate.
   */
  double drainPerSecond(double sustainedPerSecond) {
    if (latencyNanos <= 0) {
      return sustainedPerSecond;
    }
    return Math.min(sustainedPerSecond, maxInFlight * 1e9 / latencyNanos);
  }
}
