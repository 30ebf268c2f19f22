package io.sluice.dispatcher.leak;

import io.sluice.config.ProviderLimit;
import java.util.List;

/**
 * A claim against every limit of a provider at once, as pure arithmetic: the mirror of the
 * multi-limit claim of {@code lua/leaky_bucket.lua}, line by line (a specification table holds
 * both to the same numbers). The leak part is {@link LeakMath}'s; this adds the windows and leases.
 *
 * <h2>The decision</h2>
 *
 * <p><b>A slot is granted only where every limit allows it, and a refused slot charges nothing.</b>
 * The first slot's candidate is the leak's ({@code max(now, last + interval, pause)}); every
 * window limit then says the earliest instant at or after it where one more slot fits
 * ({@link WindowLedger#earliest}); the candidate moves to the latest of those, and again until no
 * limit moves it (moving later never makes a window fuller: every recorded slot is before the
 * candidate). Later slots of the claim are one interval apart, as in the leak; the claim stops at
 * the first one a window would move (it is not granted; the next claim starts there), at the
 * lookahead, or at {@code wanted}. Every decision is made before anything is written, and only
 * granted slots are written: nothing of a refused slot is consumed in any limit.
 *
 * <p><b>Sliding windows are exact over slot times.</b> A slot is granted only if the window
 * ending at it, {@code (slot - span, slot]}, holds at most {@code amount - weight} before it. Slots
 * are granted in increasing time (the leak's {@code last} is global), so every window ending at a
 * granted slot holds at most {@code amount}, and any window of length span holds at most as much
 * as the window ending at its latest slot: at most {@code amount} in every window of length
 * {@code span = per + margin}, hence in every window of length {@code per} of ARRIVALS as long as
 * the delays of calls differ by at most {@code margin}. The log keeps one entry per granted slot
 * younger than the span, for windows of up to a minute.
 *
 * <p><b>Long sliding windows</b> ({@code per} over a minute) are counted in {@value
 * WindowLedger#SUB_WINDOWS} sub-windows of {@code g = ceil(span / 60)}: a slot is charged to
 * sub-window {@code floor(slot / g)}, and a slot {@code s} is granted only if the sub-windows from
 * {@code floor((s - span) / g)} on hold at most {@code amount - weight}. Those sub-windows cover
 * {@code (s - span, s]} and every slot recorded before {@code s}, so they hold at least what
 * that window holds: the guarantee is exactly the log's, at most {@code amount} in every window
 * of length {@code span} ending at a granted slot, hence in every window of length
 * {@code per} of arrivals under the same condition on delays. What it costs: the oldest
 * sub-window counts whole while only part of it is in the window, so a window may hold back up to
 * one sub-window's units (a sixtieth of a steadily spent window) that the log would grant. What it
 * buys: each claim reads at most 61 counters (and those a lookahead ahead) whatever the amount,
 * and the key holds at most that many fields.
 *
 * <p><b>Fixed windows</b> are aligned to the epoch, UTC: window k is {@code [k * per, (k+1) * per)}.
 * A slot at s is charged to window {@code floor(s / per)} and, when {@code s + margin} falls in the
 * next one, to that one too (the call may arrive there); a slot is granted only if both have room.
 * When a window is full the candidate moves to the start of the next.
 *
 * <p><b>Cost.</b> A claim says the cost each of its slots reserves ({@link LimitedClaim#slotCost}):
 * the cost of the event the lane expects to send. The event actually sent in a slot is picked when
 * the slot fires and must cost no more than the slot reserved (the lane puts a dearer one back), so
 * the provider never sees more than a cost window's amount; a cheaper one leaves the difference
 * charged (conservative). Calls limits weigh every slot 1.
 *
 * <p><b>Concurrency</b> is leases: each granted slot holds a lease until its call ends (or its
 * slot goes unused), at most {@code amount} live across every instance; a lease not released
 * expires {@code leaseMicros} after its slot, so an instance that died gives its share back after
 * the call timeout. A claim gets at most {@code amount - live} slots.
 *
 * <p><b>Granted slots count whether or not they are used</b>: conservative, as in the leak.
 *
 * <p><b>Lost data.</b> Redis may lose a provider's keys (a FLUSHALL, a restart without
 * persistence, a failover to a replica behind): an empty window would then grant its whole amount
 * again beside the calls already made (a day's quota twice for a daily one). The leak survives
 * it (a missing {@code last} reads as now + lookahead); the windows and leases need the slot's
 * marker ({@code io.sluice.redis.SlotMarkers}), which says when the loss was found. After a loss
 * at {@code lost}, the lost keys may have held every limit's whole amount at slots up to
 * {@code lost + lookahead}, so a limit that holds nothing starts as if it held its amount there
 * ({@link WindowLedger#assumeLost}; concurrency: {@code amount} leases until
 * {@code lost + lookahead + leaseMicros}). A limit that holds something was written after the
 * loss, which no claim does before its own hold has passed; so no window of length span holds
 * more than the amount of slots granted after the loss, and none mixes them with lost ones.
 * A window known only from the provider's answers is not held so
 * ({@link ProviderLimits#holdsAfterLoss}): the provider states again what remains of it.
 */
final class LimitMath {
  /** Fixed windows can move the candidate once per limit per pass; this many passes suffice. */
  private static final int PASSES = 16;
  /** When concurrency is full, ask again at the latest this soon (another instance may release). */
  static final long CONCURRENCY_RETRY_MICROS = 50_000;

  private final LeakMath leak;

  public LimitMath(LeakMath leak) {
    this.leak = leak;
  }

  /**
   * Claims slots against every limit, updating {@code ledger} with the granted ones only; nothing
   * known lost.
   *
   * @return the answer and the leak state after it
   */
  public LeakMath.ClaimStep claim(LeakState state, WindowLedger ledger, long nowMicros,
      ProviderLimits limits, LimitedClaim request) {
    return claim(state, ledger, nowMicros, 0, limits, request);
  }

  /**
   * Claims slots against every limit, updating {@code ledger} with the granted ones only.
   *
   * @param lostAtMicros when the provider's keys were found lost (its slot marker), 0 if never:
   *                     a limit holding nothing then holds its amount as of
   *                     {@code lost + lookahead} (see "Lost data" above)
   * @return the answer and the leak state after it
   */
  public LeakMath.ClaimStep claim(LeakState state, WindowLedger ledger, long nowMicros,
      long lostAtMicros, ProviderLimits limits, LimitedClaim request) {
    LeakMath.JointStep step = claim(state, null, 0, ledger, nowMicros, lostAtMicros, limits,
        request);
    return new LeakMath.ClaimStep(step.claim(), step.next());
  }

  /**
   * Claims slots against every limit and, when {@code total} is given, each also one slot of the
   * provider's total line at {@code totalPerSecond} ({@link LeakMath#claim(LeakState, LeakState,
   * long, double, double, int, long)}): the first candidate is at least one total interval after
   * the total's last slot, and the claim's slots are the larger interval apart.
   *
   * @param total the provider's total line, or null for none
   */
  public LeakMath.JointStep claim(LeakState state, LeakState total, double totalPerSecond,
      WindowLedger ledger, long nowMicros, long lostAtMicros, ProviderLimits limits,
      LimitedClaim request) {
    long now = Math.max(nowMicros, state.clockMicros());
    if (total != null) {
      now = Math.max(now, total.clockMicros());
    }
    double factor = leak.factorAt(state, now);
    long interval = LeakMath.intervalMicros(limits.ratePerSecond(), factor);
    long lookahead = request.lookaheadMicros();
    long last = leak.lastOrLost(state, now, lookahead);
    long first = last == LeakState.NEVER ? now : Math.max(now, last + interval);
    first = Math.max(first, state.pausedUntilMicros());
    long totalLast = LeakState.NEVER;
    if (total != null) {
      long totalInterval = LeakMath.intervalMicros(totalPerSecond, 1.0);
      totalLast = leak.lastOrLost(total, now, lookahead);
      if (totalLast != LeakState.NEVER) {
        first = Math.max(first, totalLast + totalInterval);
      }
      interval = Math.max(interval, totalInterval);
    }
    long horizon = now + lookahead;
    List<ProviderLimit> windows = limits.beyondRate().stream()
        .filter(l -> l.kind() != ProviderLimit.Kind.CONCURRENCY).toList();
    ProviderLimit concurrency = limits.beyondRate().stream()
        .filter(l -> l.kind() == ProviderLimit.Kind.CONCURRENCY).findFirst().orElse(null);
    // The latest instant a lost slot can have been granted at; 0: nothing lost.
    long lostSlot = lostAtMicros > 0 ? lostAtMicros + lookahead : 0;
    for (ProviderLimit l : limits.beyondRate()) {
      ledger.evict(now, l);
      if (lostSlot > 0 && l.kind() != ProviderLimit.Kind.CONCURRENCY && limits.holdsAfterLoss(l)) {
        ledger.assumeLost(l, now, lostSlot);
      }
    }

    int wanted = request.wanted();
    long concurrencyRetry = Long.MAX_VALUE;
    if (concurrency != null) {
      int live = ledger.liveLeases();
      long earliestExpiry = ledger.earliestLeaseExpiry();
      if (lostSlot > 0 && live == 0 && now < lostSlot + request.leaseMicros()) {
        live = (int) concurrency.amount();
        earliestExpiry = lostSlot + request.leaseMicros();
      }
      int free = (int) concurrency.amount() - live;
      if (free < wanted) {
        concurrencyRetry = Math.min(earliestExpiry, now + CONCURRENCY_RETRY_MICROS);
      }
      wanted = Math.max(0, Math.min(wanted, free));
    }

    long slot = first;
    for (int pass = 0; pass < PASSES; pass++) {
      long moved = latestEarliest(ledger, windows, slot, request.slotCost());
      if (moved == slot) {
        break;
      }
      slot = moved;
    }
    first = slot;
    int granted = 0;
    long nextFree = first;
    while (granted < wanted && slot <= horizon) {
      long fits = latestEarliest(ledger, windows, slot, request.slotCost());
      if (fits != slot) {
        nextFree = fits;
        break;
      }
      for (ProviderLimit l : windows) {
        ledger.record(l, slot, weight(l, request.slotCost()));
      }
      if (concurrency != null) {
        ledger.lease(request.leaseId(granted), slot + request.leaseMicros());
      }
      last = slot;
      totalLast = slot;
      granted++;
      slot += interval;
      nextFree = slot;
    }
    long retryAt;
    if (nextFree == Long.MAX_VALUE) {
      // A slot cost no window can ever hold (the gate keeps such events out): ask again later.
      nextFree = now + 1_000_000;
      retryAt = nextFree;
    } else if (wanted == 0) {
      retryAt = now;
    } else {
      retryAt = Math.max(now, nextFree - lookahead);
    }
    if (concurrencyRetry != Long.MAX_VALUE) {
      retryAt = granted > 0 ? Math.min(retryAt, concurrencyRetry)
          : Math.max(retryAt, concurrencyRetry);
    }
    LeakState next = new LeakState(last, state.cutFactor(), state.cutAtMicros(),
        state.pausedUntilMicros(), now);
    LeakState nextTotal = total == null ? null
        : new LeakState(totalLast, 1.0, LeakState.NEVER, LeakState.NEVER, now);
    return new LeakMath.JointStep(new SlotClaim(now, granted, granted > 0 ? first : nextFree,
        interval, retryAt, factor), next, nextTotal);
  }

  /** The latest of every window's earliest instant at or after {@code slot}. */
  private static long latestEarliest(WindowLedger ledger, List<ProviderLimit> windows, long slot,
      long cost) {
    long latest = slot;
    for (ProviderLimit l : windows) {
      if (latest == Long.MAX_VALUE) {
        return latest;
      }
      latest = Math.max(latest, ledger.earliest(l, slot, weight(l, cost)));
    }
    return latest;
  }

  /** A slot weighs its cost in a cost limit and 1 in a calls limit. */
  static long weight(ProviderLimit limit, long slotCost) {
    return limit.kind() == ProviderLimit.Kind.COST ? slotCost : 1;
  }
}
