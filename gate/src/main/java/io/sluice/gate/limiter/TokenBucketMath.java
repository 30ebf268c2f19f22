package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The pure-Java mirror of {@code lua/token_bucket.lua}: the same decision, step by step, with
 * {@code now} passed in. It exists for three reasons: a table-driven specification runs against
 * both this and the script on a real Redis (so the script's math is pinned down by readable
 * tests), the gate's {@code local} fallback enforces the same bucket in-process when Redis is down,
 * and the lease arithmetic is checked against it.
 *
 * <p>Read the script's header for the model. In short: the level may go negative (units reserved
 * ahead, each due at {@code now + (j - level)/refill}); the reservation horizon bounds that debt;
 * an event that does not fit gets a ticket (a place in the bucket's waiting line) instead of a
 * charge, and is charged without the horizon check when it comes back holding it. Units taken
 * beyond an event's need form a lease; the bucket holds those of them it had against its cap (it refills only to
 * {@code capacity - held}) until the lease is released or its deadline passes. In shadow mode
 * ({@link AcquireRequest#shadow()}) only units the bucket holds now are charged: nothing is
 * reserved or queued, and an event that cannot be paid now gets the wait it would have had.
 *
 * <p>A change of the quota's rate keeps what was sold where it is and counts it against the new
 * rate: a raise turns the reservations sold into an old line at the old rate, beside which the
 * bucket refills at the difference until it ends ({@link Refill}); a cut below what runs folds
 * everything sold back into units at the new rate. The script's "A change of rate" has the rules.
 *
 * <p>All arithmetic is in doubles, as Lua's numbers are, and in the same order, so the two agree to
 * the last bit.
 */
public final class TokenBucketMath {
  private static final double FIT_EPSILON = 1e-9;
  /** How far, by rounding, a level refilled in several steps may lie from one refilled in one. */
  private static final double LINE_EPSILON = 1e-6;

  private TokenBucketMath() {}

  /**
   * How far ahead a ticket holder may be charged: the horizon and as much again (at least a
   * second). The room beyond the horizon is for holders only, so events that fit the horizon
   * never crowd out one that returns late; and no ordinary charge leaves the level below
   * {@code -refill * reach}, the worst a bucket rebuilt after a loss of Redis's data assumes.
   */
  public static long reachMicros(BucketSpec spec) {
    return spec.horizonMicros() + Math.max(spec.horizonMicros(), 1_000_000L);
  }

  /** A decision and the state the bucket holds after it. */
  public record Step(Acquisition acquisition, BucketState next) {}

  /**
   * Decides one request against a bucket.
   *
   * @param state     the stored state, or null for a bucket never seen (full)
   * @param nowMicros the clock; if it is behind the stored time the stored time is used (no
   *                  refill backwards)
   */
  public static Step acquire(BucketState state, BucketSpec spec, AcquireRequest request, long nowMicros) {
    return acquire(state, spec, request, nowMicros, 0);
  }

  /**
   * Decides one request against a bucket in a slot whose data Redis lost at {@code lostMicros}
   * (the value of the slot's marker, {@link io.sluice.redis.SlotMarkers}; 0 when nothing was lost).
   *
   * @param state null for a bucket Redis does not have: full, or after a loss the worst the lost
   *              bucket could have been: empty with a full reach of reservations at the loss
   *              ({@link #reachMicros}) and, with leases, its capacity leased out until the
   *              request's hold after it, refilled since the later (the script's "Lost data")
   */
  public static Step acquire(BucketState state, BucketSpec spec, AcquireRequest request, long nowMicros,
      long lostMicros) {
    BucketState s = state == null ? BucketState.full(spec, nowMicros) : state;
    if (state == null && lostMicros > 0) {
      long lostEnd = lostMicros + Math.max(reachMicros(spec), request.holdMicros());
      double level = Math.min(spec.capacity(), (double) (nowMicros - lostEnd) * spec.refillPerSecond() / 1_000_000);
      // Its reservations were sold at the rates in force before the loss, which Redis lost with
      // it: the rate now may be a cut since. Until they are all due, a change of rate must not read
      // the debt as sold at the rate stored with it (issue 34).
      s = new BucketState(level, nowMicros, 0, 0, List.of(), 0, 0, 0, 0, 0, lostEnd > nowMicros ? lostEnd : 0);
    }
    double level = s.level();
    long ts = s.updatedMicros();
    double line = s.lineMicros();
    long now = Math.max(nowMicros, ts);
    List<BucketState.HeldLease> leases = new ArrayList<>(s.leases());
    double held = s.held();
    double rate = spec.refillPerSecond();
    double oldRate = s.oldEndMicros() > ts ? s.oldRate() : 0;
    long oldEnd = s.oldEndMicros() > ts ? s.oldEndMicros() : 0;

    // A change of rate, taken as of the stored time (the script's "A change of rate"): what was
    // sold keeps its due times and counts against the new rate.
    double top = 0;
    long debtEnd = 0;
    if (s.rate() > 0 && s.rate() != rate) {
      // What was sold: the old line, and the level's debt, reservations at up to `soldTop` (with
      // the old line) due by `end` (the rest of the debt, after a cut, is not sold time).
      double debt = Math.max(0, -level);
      long end = ts;
      double soldTop = 0;
      if (debt > 0) {
        end = s.debtEndMicros() > 0 ? s.debtEndMicros()
            : ts + (long) Math.ceil(new Refill(s.rate(), oldRate, oldEnd).waitMicros(ts, debt));
        soldTop = s.top() > 0 ? s.top() : s.rate();
      }
      // After a loss, until the lost bucket's last reservation is due: the debt holds reservations
      // sold at a rate Redis lost (the quota may have been cut since, before the bucket was rebuilt
      // at the new rate), so no rate it could name is a floor for them: a raise does not open an
      // old line beside them (it sold beside a line at the cut rate while the lost one ran at the
      // rate before: 46 units in 4.12 s where 45.75 are allowed), it folds them back, and nothing
      // new is due before they end.
      boolean soldAtALostRate = debt > 0 && s.lostEndMicros() > ts;
      Refill kept = new Refill(rate, oldRate, oldEnd);
      if (rate >= oldRate && (debt == 0 || ts + kept.waitMicros(ts, debt) >= end)) {
        // Kept as it is: the debt repaid at the new rate beside the old line ends no sooner than
        // its reservations, so nothing new is due among them (a cut, or a raise back after one).
        if (debt > 0 && rate < soldTop) {
          top = soldTop;
          debtEnd = end;
        }
      } else {
        // One old line no slower and no shorter than what was sold.
        double soldRate = debt > 0 ? Math.max(soldTop, oldRate) : oldRate;
        long soldEnd = Math.max(end, oldEnd);
        if (soldRate <= rate && !soldAtALostRate) {
          // A raise: the new rate sells beside the old line at once.
          level = debt > 0 ? 0 : level;
          oldRate = soldRate;
          oldEnd = soldEnd;
        } else {
          // Cut below what runs, or a debt sold at a lost rate: all that was sold folds back into
          // units, repaid at the new rate; nothing new is due before what was sold ends.
          double units = debt + Math.max(0, oldEnd - ts) * oldRate / 1_000_000;
          level = -Math.max(units, (soldEnd - ts) * rate / 1_000_000);
          top = soldRate;
          debtEnd = soldEnd;
          oldRate = 0;
          oldEnd = 0;
        }
      }
      // A lease granted before: its reserved units fell due on the old refill; none goes back.
      leases.replaceAll(l -> new BucketState.HeldLease(l.id(), l.deadlineMicros(), l.units(), l.held(),
          l.grantedMicros(), l.units()));
    } else if (s.rate() == rate) {
      top = s.top();
      debtEnd = s.debtEndMicros();
    }
    Refill refill = new Refill(rate, oldRate, oldEnd);

    // Leases that ended, in deadline order: refill up to each deadline under the cap of the time.
    List<BucketState.HeldLease> ended = new ArrayList<>();
    for (BucketState.HeldLease l : leases) {
      if (l.deadlineMicros() <= now) {
        ended.add(l);
      }
    }
    ended.sort(Comparator.comparingLong(BucketState.HeldLease::deadlineMicros));
    for (BucketState.HeldLease e : ended) {
      if (e.deadlineMicros() > ts) {
        level = Math.min(spec.capacity() - held, level + refill.gain(ts, e.deadlineMicros()));
        ts = e.deadlineMicros();
      }
      held -= e.held();
      leases.remove(e);
    }

    if (now > ts) {
      level = Math.min(spec.capacity() - held, level + refill.gain(ts, now));
      ts = now;
    }

    // A lease its holder is done with: its unused held units return, and so do its unused
    // reserved units still ahead of their due time; its cap is lifted.
    LeaseRelease release = request.release();
    BucketState.HeldLease named = release == null ? null
        : leases.stream().filter(l -> l.isNamedBy(release)).findFirst().orElse(null);
    if (named != null) {
      leases.remove(named);
      held -= named.held();
      double back = Math.max(0, named.held() - release.used());
      // Lease unit i is ahead of its due time iff i > lead + (now - granted) * refill.
      double aheadFrom = Math.floor(named.lead() + refill.gain(named.grantedMicros(), now)) + 1;
      double ahead = Math.max(0, named.units() - Math.max(Math.max(release.used(), named.held()), aheadFrom - 1));
      // They go back only while the reservations still end with the lease's last unit: once units
      // were charged after it (a ticket holder, another event), giving them back would move the end
      // of the line back over those units' due times and sell them again, while the lease's unused
      // ones stay a gap in the middle (found by the chaos run: 19 admissions in 9.3 s from a
      // bucket of 4 at 1.5/s). Then they are lost, as if they had fallen due: stricter, never looser.
      double leaseEndLevel = named.lead() - named.units() + refill.gain(named.grantedMicros(), now);
      if (level < leaseEndLevel - LINE_EPSILON) {
        ahead = 0;
      }
      back = back + ahead;
      level = Math.min(spec.capacity() - held, level + back);
    }

    // Places the caller did not use, if the line still ends with them.
    double usPerUnit = 1_000_000 / spec.refillPerSecond();
    PlacesRelease places = request.places();
    if (places != null && s.lineMicros() == places.lineEndMicros()) {
      line = line - places.unused() * usPerUnit;
    }

    if (level >= 0) {
      // Repaid: nothing of a cut is owed any more.
      top = 0;
      debtEnd = 0;
    }
    // Until then, while a cut's debt is repaid, nothing is reserved: new units are sold only once
    // the bucket holds them, so none falls due among the old reservations or extends them.
    long horizon = debtEnd > 0 ? 0 : spec.horizonMicros();
    long reach = debtEnd > 0 ? 0 : reachMicros(spec);

    double before = level;
    double fit = Math.floor(level + refill.gain(now, now + horizon) + FIT_EPSILON);

    int granted = 0;
    long ticket = 0;
    if (request.shadow()) {
      // Shadow mode: charge only units the bucket holds now (no epsilon: a lease's units count as
      // held by the same floor); otherwise no debt, no line, and the wait the event would have had.
      double heldNow = Math.floor(level);
      if (request.need() <= heldNow) {
        granted = (int) Math.min(request.want(), heldNow);
      } else if (request.need() <= fit) {
        ticket = (long) Math.ceil(refill.waitMicros(now, request.need() - level));
      } else {
        double open = now + refill.waitMicros(now, request.need() - level) - horizon;
        ticket = (long) Math.ceil(Math.max(open, line) - now);
      }
    } else if (request.want() <= fit) {
      granted = request.want();
    } else if (request.need() <= fit) {
      granted = (int) fit;
    } else if (request.owed() || request.holder() && (request.need()
        <= Math.floor(level + refill.gain(now, now + reach) + FIT_EPSILON)
        || request.need() > spec.capacity() - held + refill.gain(now, now + reach)
            && level >= spec.capacity() - held - FIT_EPSILON)) {
      // A holder within the reach (a late one's units may sit past the horizon), or, costing more
      // than the bucket could ever fit within it, once the bucket is full; owed units always.
      granted = request.need();
    } else {
      double open = now + refill.waitMicros(now, request.need() - level) - horizon;
      double turn = Math.max(open, line);
      line = turn + request.want() * usPerUnit;
      ticket = (long) Math.ceil(turn - now);
    }
    level -= granted;
    if (debtEnd > 0 && granted > 0 && !request.owed() && level < 0) {
      // Sold now: the last reservation is the last unit of the debt.
      debtEnd = Math.max(debtEnd, now + (long) Math.ceil(refill.waitMicros(now, -level)));
    }

    long seq = s.lastLeaseId();
    long leaseId = 0;
    long leaseEnd = 0;
    if (granted > request.need()) {
      seq++;
      leaseId = seq;
      leaseEnd = now + request.holdMicros();
      double lead = before - request.need();
      int units = granted - request.need();
      int heldUnits = (int) Math.max(0, Math.min(units, Math.floor(lead)));
      leases.add(new BucketState.HeldLease(seq, leaseEnd, units, heldUnits, now, lead));
    }
    // The script stores the line, in whole microseconds, only while it lies ahead (printf's %.0f
    // rounds half to even, as rint does).
    double storedLine = line > now ? Math.rint(line) : 0;
    long lineEnd = granted == 0 && !request.shadow() && line > now ? (long) storedLine : 0;
    // The rate is kept while the bucket owes reservations or has an old line (a change of it then
    // matters), the old line while it runs.
    boolean old = oldEnd > now;
    return new Step(
        new Acquisition(granted, before, now, ticket, leaseId, leaseEnd, lineEnd, old ? oldRate : 0, old ? oldEnd : 0),
        new BucketState(level, ts, storedLine, seq, leases, level < 0 || old ? rate : 0,
            level < 0 ? top : 0, level < 0 ? debtEnd : 0, old ? oldRate : 0, old ? oldEnd : 0,
            s.lostEndMicros() > now ? s.lostEndMicros() : 0));
  }
}
