package io.sluice.dispatcher.dispatch.lane;

import io.sluice.config.BatchRule;
import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.fair.GlobalShare;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.LimitedClaim;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.leak.SlotClaim;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a lane gets its slots: it claims them from the leak while it has work for them and room in
 * flight, sets a timer for each slot granted, waits as {@link LaneSchedule} says when none is
 * granted or the leak does not answer, gives back a slot's concurrency lease, and publishes the
 * lane's busy tenants to the instances sharing its provider ({@link ShareCadence}) to take its
 * part of the leak. What a slot does once due is the lane's ({@link Firing}).
 *
 * <p>Thread-safety: a part of its lane, it changes state only under the lane's monitor, as the
 * lane does, and starts no I/O while holding it.
 */
final class SlotClaims {
  private static final Logger LOG = LoggerFactory.getLogger(SlotClaims.class);

  /** What a lane does with a slot when the timer runs it. */
  interface Firing {
    /** {@code slot} is due; the timer was asked to run it at {@code atNanos}. */
    void fire(Slot slot, long atNanos);
  }

  /** The lane's monitor: every state change here happens under it. */
  private final Object lane;
  private final String name;
  private final LimitSource limits;
  private final LaneSchedule schedule;
  private final LaneQueue queue;
  private final LaneLeak leak;
  private final LaneTimer timer;
  private final Pace pace;
  private final LongSupplier nanoTime;
  private final DispatchListener listener;
  private final BiConsumer<DispatchEntry, String> cannotFit;
  private final Firing firing;
  private final ShareCadence sharing = new ShareCadence();
  /**
   * This lane only ever holds one tenant's events (a tenant's own endpoint): an instance holding
   * it holds that tenant alone, so there is no share to work out and nothing is published.
   */
  private volatile boolean oneTenant;
  /** How many events go in one call ({@code batch:}); off: one call per slot and event. */
  private volatile BatchRule batch = BatchRule.OFF;
  /** The last claim failed: logged once until one is answered again. */
  private boolean leakDown;

  /**
   * @param lane   the lane's monitor
   * @param hooks  the lane's listener, clock, pace and unfit entries' way out
   * @param firing what a due slot does
   */
  SlotClaims(Object lane, String name, LaneHooks hooks, LaneTimer timer,
      LimitSource limits, LaneSchedule schedule, LaneQueue queue, LaneLeak leak, Firing firing) {
    this.lane = lane;
    this.name = name;
    this.limits = limits;
    this.schedule = schedule;
    this.queue = queue;
    this.leak = leak;
    this.timer = timer;
    this.pace = hooks.pace();
    this.nanoTime = hooks.nanoTime();
    this.listener = hooks.listener();
    this.cannotFit = hooks.cannotFit();
    this.firing = firing;
  }

  /** The lane holds one tenant's events only, and publishes none ({@link ProviderLane#oneTenant}). */
  void oneTenant() {
    this.oneTenant = true;
  }

  /** The lane sends up to {@code rule.maxEvents()} events a call ({@link ProviderLane#batchWith}). */
  void batch(BatchRule rule) {
    this.batch = rule;
  }

  /** Claims slots if there is work for them and room in flight. Called after every change. */
  void kick() {
    shareBusyTenants();
    int wanted;
    ProviderLimits enforced = limits.current();
    long slotCost;
    String leases = null;
    List<DispatchEntry> unfit = List.of();
    long sendable = enforced.largestSendableCost();
    synchronized (lane) {
      if (!schedule.mayClaim()) {
        return;
      }
      schedule.retune(enforced.ratePerSecond(), enforced.windowMarginNanos(),
          nanoTime.getAsLong());
      // An event dearer than the CONFIGURED windows never gets here: that is its own fault, and
      // ReadyRecordCheck dead-letters it before any slot. This catches limits lowered since (a
      // learned or reloaded window), which are the lane's state, not the event's: it goes round
      // the ladder instead, by when the learned limit may have grown again.
      if (schedule.holdsCostAbove(sendable)) {
        unfit = queue.removeIf(e -> e.event().cost() > sendable);
      }
    }
    for (DispatchEntry e : unfit) {
      cannotFit.accept(e, "cost " + e.event().cost() + " exceeds what " + name
          + "'s smallest cost window allows now (" + sendable + ")");
    }
    synchronized (lane) {
      // A batching lane's slot carries up to maxEvents of its queue: one slot per batch queued.
      wanted = schedule.claimSlots(batch.callsFor(queue.size()), nanoTime.getAsLong());
      if (wanted <= 0) {
        long shareWait = schedule.takeShareWait();
        if (shareWait > 0) {
          timer.later(this::kick, shareWait);
        }
        return;
      }
      slotCost = batch.on()
          ? schedule.batchSlotCost(enforced.countsCost(), batch.maxEvents(), sendable)
          : schedule.slotCost(enforced.countsCost());
      if (enforced.hasConcurrency()) {
        leases = leak.nextLeases();
      }
    }
    LaneLeak.Sent sent;
    long sentNanos = nanoTime.getAsLong();
    // The dispatcher's pace: an overloaded process claims its slots further apart; the pacer's
    // tolerance and slack stay those of the rate itself, which the other instances' slots are
    // spaced by.
    try {
      sent = leak.claim(enforced, pace.factor(), wanted, slotCost, leases);
    } catch (RuntimeException e) {
      claimFailed(e);
      return;
    }
    boolean leased = leases != null;
    long maxCost = enforced.countsCost() ? slotCost : Long.MAX_VALUE;
    sent.answer().whenComplete((c, error) -> {
      if (error != null) {
        claimFailed(error);
      } else {
        claimed(c, sent.request(), leased, maxCost, sentNanos, nanoTime.getAsLong());
      }
    });
  }

  private void claimed(SlotClaim claim, LimitedClaim request, boolean leased, long maxCost,
      long sentNanos, long receivedNanos) {
    long[] dueNanos = new long[claim.granted()];
    synchronized (lane) {
      schedule.claimAnswered(sentNanos, receivedNanos, claim.nowMicros());
      if (leakDown) {
        leakDown = false;
        LOG.info("{}: the leak answers again", name);
      }
      if (schedule.closed()) {
        // Granted leases would hold other instances' concurrency until they expire.
        for (int i = 0; leased && i < claim.granted(); i++) {
          leak.release(request.leaseId(i));
        }
        return;
      }
      schedule.granted(claim.granted());
      schedule.claimedFromShare(claim.granted(), claim.firstSlotMicros(), claim.intervalMicros(),
          claim.nowMicros(), receivedNanos);
      for (int i = 0; i < claim.granted(); i++) {
        dueNanos[i] = schedule.dueNanos(claim.slotMicros(i));
      }
    }
    long intervalNanos = TimeUnit.MICROSECONDS.toNanos(claim.intervalMicros());
    long now = nanoTime.getAsLong();
    for (int i = 0; i < claim.granted(); i++) {
      Slot slot = new Slot(claim.slotMicros(i), claim.nowMicros(), dueNanos[i], intervalNanos,
          maxCost, leased ? request.leaseId(i) : null);
      // Asked to run at its instant, or now if that has passed: how late the timer runs it is
      // the timer's lateness alone (the pace's signal), not the claim's.
      long at = dueNanos[i] - now > 0 ? dueNanos[i] : now;
      timer.later(() -> firing.fire(slot, at), at - now);
    }
    if (claim.granted() == 0) {
      long waitNanos;
      synchronized (lane) {
        waitNanos = schedule.noSlotsUntil(receivedNanos, claim.nowMicros(), claim.retryAtMicros());
      }
      timer.later(this::kick, waitNanos);
    } else {
      kick();
    }
  }

  private void claimFailed(Throwable error) {
    boolean first;
    long waitNanos;
    long now = nanoTime.getAsLong();
    synchronized (lane) {
      // The wait is set with the failure, so that no kick in between asks the silent leak again.
      waitNanos = schedule.claimFailed(now);
      first = !leakDown;
      leakDown = true;
    }
    if (first) {
      LOG.warn("{}: the leak does not answer ({}); no calls until it does", name, error.toString());
    }
    listener.leakUnavailable(name, error);
    timer.later(this::kick, waitNanos);
  }

  /**
   * Gives back a slot's concurrency lease; a lost release only waits for the lease to expire. Once
   * the leak has it back the lane may claim again at once ({@link LaneSchedule#leaseReturned}):
   * a claim refused while this lane held every lease waits only for the leak's poll of other
   * instances' releases, and this one's own come back at a time only it knows.
   */
  void release(Slot slot) {
    if (slot.lease() == null) {
      return;
    }
    leak.release(slot.lease()).thenRun(() -> {
      synchronized (lane) {
        schedule.leaseReturned(nanoTime.getAsLong());
      }
      kick();
    });
  }

  /**
   * Tells the other instances sharing this provider how many busy tenants of each tier this lane
   * holds ({@link ShareCadence} says when), and takes the share of the leak the sums give it
   * ({@link GlobalShare}, {@link ClaimAllowance}). Publishes while the lane has work, and once
   * more when it has none, which withdraws it.
   */
  private void shareBusyTenants() {
    if (oneTenant) {
      return;
    }
    Map<String, Integer> busy;
    long now = nanoTime.getAsLong();
    synchronized (lane) {
      if (schedule.closed()) {
        return;
      }
      boolean beyondRate = limits.current().hasLimitsBeyondRate();
      if (beyondRate || sharing.stale(now)) {
        // Limits beyond the rate (calls or cost windows, concurrency) set the pace, which a
        // share of the rate does not know: a cap from it could hold back slots the windows
        // allow, and scaled weights without a cap would split the leak worse than the
        // configured ones, so such a provider is not shared (fair within each instance, the
        // leak strict). And a share not confirmed for a while (Redis slow or down, or a
        // publication that never came back) is not trusted: claim as one alone would.
        schedule.unshared();
        queue.weighAsConfigured();
        if (beyondRate) {
          return;
        }
      }
      if (!sharing.due(now)) {
        return;
      }
      busy = queue.busyTenantsByTier();
      if (!sharing.publish(busy, now)) {
        return;
      }
    }
    leak.busyTenants(busy, ShareCadence.SHARE_TTL_MICROS).whenComplete((global, error) -> {
      synchronized (lane) {
        long heard = nanoTime.getAsLong();
        sharing.answered(error == null, heard);
        if (error != null) {
          return;
        }
        if (busy.isEmpty() || limits.current().hasLimitsBeyondRate()) {
          // Withdrawn, or the limits went beyond the rate while the publication was out.
          schedule.unshared();
          queue.weighAsConfigured();
          return;
        }
        GlobalShare share = GlobalShare.of(queue.configuredWeights(), busy, global);
        schedule.shareLeak(share.instanceShare(), leak.lookaheadNanos(), heard);
        queue.weighBy(share.localWeights());
      }
      if (error == null) {
        timer.later(this::kick, 0);
      }
    });
  }
}
