package io.sluice.gate.limiter;

import java.util.List;

/**
 * One table, the behaviour of a bucket step by step, run over every implementation of the bucket
 * ({@link io.sluice.testkit.SpecTable}): the Java math and the {@code local} fallback
 * {@link LocalBuckets} ({@link TokenBucketSpecTest}), the Lua script on a real Redis, in batches
 * and on a cluster ({@link TokenBucketScriptIT}).
 * The bucket: capacity 10, refill 10/s (one unit per 100 ms), reservation horizon 1 s (so at most
 * ten units of debt). Each step first moves time by {@code advanceMillis}, then asks.
 *
 * <p>Expected levels and tickets are exact for the math; against Redis they may drift by the real
 * time that passes between steps (a few milliseconds, at most a few hundredths of a unit), so the
 * rows keep every decision at least 0.1 unit away from an edge.
 *
 * <p>The local fallback is asked for one event at a time ({@link LocalBuckets#decide}): never a
 * lease, a renewal, a release, a ticket holder's charge or places in line, and it has no Redis to
 * lose. A row that needs any of those is Redis's answer to the local bucket ({@link
 * Step#notAskedLocally}): the next row it is asked starts from the level that row left, as the
 * fallback starts from Redis's last answer ({@link KnownLevel}). Where it is asked and rightly
 * answers otherwise, the row says so ({@link Step#local}).
 */
final class TokenBucketSpecification {
  static final BucketSpec SPEC = new BucketSpec(10, 10, 1_000_000);
  /** The quota changed (rows 62 on): lowered to 20/s, raised to 100/s or 50/s; its capacity changed. */
  static final BucketSpec AT_20 = new BucketSpec(10, 20, 1_000_000);
  static final BucketSpec AT_100 = new BucketSpec(10, 100, 1_000_000);
  static final BucketSpec AT_50 = new BucketSpec(10, 50, 1_000_000);
  static final BucketSpec WIDER = new BucketSpec(40, 100, 1_000_000);
  static final BucketSpec NARROWER = new BucketSpec(5, 100, 1_000_000);

  /**
   * @param holdMillis    how long the bucket holds the lease of the units beyond need
   * @param releaseStep   the step (0-based) whose lease (or places in line, when that step was
   *                      queued) this request releases first; -1: none
   * @param releaseUsed   how many of that lease's units (or places) beyond its asker's were used
   * @param expectGranted units charged
   * @param expectLevel   level before the charge, after refill and release
   * @param expectTicketMillis when nothing is granted, time until the event's turn
   */
  /** What Redis loses before a step: nothing, the bucket alone (expired), or its slot's data. */
  enum Loss { NONE, BUCKET, SLOT }

  record Step(String why, long advanceMillis, int want, int need, boolean holder, long holdMillis,
              int releaseStep, int releaseUsed, int expectGranted, double expectLevel, long expectTicketMillis,
              Loss loss, boolean shadow, Local local, BucketSpec spec, double expectDueMillis) {

    Step(String why, long advanceMillis, int want, int need, boolean holder, long holdMillis,
         int releaseStep, int releaseUsed, int expectGranted, double expectLevel, long expectTicketMillis,
         Loss loss, boolean shadow, Local local) {
      this(why, advanceMillis, want, need, holder, holdMillis, releaseStep, releaseUsed, expectGranted,
          expectLevel, expectTicketMillis, loss, shadow, local, SPEC, -1);
    }

    Step(String why, long advanceMillis, int want, int need, boolean holder, long holdMillis,
         int releaseStep, int releaseUsed, int expectGranted, double expectLevel, long expectTicketMillis) {
      this(why, advanceMillis, want, need, holder, holdMillis, releaseStep, releaseUsed, expectGranted,
          expectLevel, expectTicketMillis, Loss.NONE, false, null);
    }

    Step(String why, long advanceMillis, int want, int need, boolean holder, long holdMillis,
         int releaseStep, int releaseUsed, int expectGranted, double expectLevel, long expectTicketMillis,
         Loss loss, boolean shadow) {
      this(why, advanceMillis, want, need, holder, holdMillis, releaseStep, releaseUsed, expectGranted,
          expectLevel, expectTicketMillis, loss, shadow, null);
    }

    /** Why the local fallback is never asked this row (null: it is). */
    String notAskedLocally() {
      if (loss != Loss.NONE) {
        return "a loss of Redis's data is Redis's (a bucket the fallback never heard of: LocalBucketsTest)";
      }
      if (need == 0) {
        return "a renewal is asked of Redis only";
      }
      if (holder) {
        return "a ticket holder is charged by Redis only";
      }
      if (releaseStep >= 0) {
        return "releases are sent to Redis only";
      }
      return want > need ? "leases and places in line are taken from Redis only" : null;
    }

    /**
     * Where the local fallback is asked this row and rightly answers otherwise: beyond the
     * reservation horizon it keeps no line and sells no ticket; the event is held back as under
     * {@code fail_closed} ({@link LimiterDecision.Unavailable}).
     */
    Step heldBackLocally() {
      return locally(new Local("beyond the horizon the fallback keeps no line: held back (Unavailable), no ticket",
          true, 0));
    }

    /**
     * Where the local fallback is asked this shadow row and would have had the event wait
     * {@code ticketMillis} instead: it keeps no line (the enforced rows before were held back), so
     * the wait counts the bucket's debt only.
     */
    Step withoutALineLocally(long ticketMillis) {
      return locally(new Local("the fallback keeps no line: the wait counts the debt only", false, ticketMillis));
    }

    private Step locally(Local l) {
      return new Step(why, advanceMillis, want, need, holder, holdMillis, releaseStep, releaseUsed, expectGranted,
          expectLevel, expectTicketMillis, loss, shadow, l, spec, expectDueMillis);
    }

    /** The same step asked of a bucket of {@code s} (a quota changed: the table's rates below). */
    Step at(BucketSpec s) {
      return new Step(why, advanceMillis, want, need, holder, holdMillis, releaseStep, releaseUsed, expectGranted,
          expectLevel, expectTicketMillis, loss, shadow, local, s, expectDueMillis);
    }

    /** The same step, its last unit due {@code millis} after the decision. */
    Step due(double millis) {
      return new Step(why, advanceMillis, want, need, holder, holdMillis, releaseStep, releaseUsed, expectGranted,
          expectLevel, expectTicketMillis, loss, shadow, local, spec, millis);
    }

    AcquireRequest request() {
      return new AcquireRequest(want, need, holder, holdMillis * 1000, null, null, shadow);
    }

    /**
     * This step's request, releasing what step {@code releaseStep} answered with.
     *
     * @param earlier      that step's answer
     * @param clockShift   how far the bucket's stored times moved back since that answer
     */
    AcquireRequest request(Acquisition earlier, long clockShift) {
      if (releaseStep < 0) {
        return request();
      }
      int beyondNeed = STEPS.get(releaseStep).want() - STEPS.get(releaseStep).need();
      if (earlier.isGranted()) {
        int units = earlier.granted() - STEPS.get(releaseStep).need();
        return request().releasing(
            new LeaseRelease(earlier.leaseId(), earlier.leaseEndMicros() - clockShift, units, releaseUsed));
      }
      return request().givingBack(new PlacesRelease(earlier.lineEndMicros() - clockShift, beyondNeed - releaseUsed));
    }
  }

  /**
   * The local fallback's expected difference on a row, and why: held back ({@link
   * LimiterDecision.Unavailable}), or a shadow wait of {@code ticketMillis}.
   */
  record Local(String why, boolean heldBack, long ticketMillis) {}

  private static Step ask(String why, long advanceMillis, int want, int need, boolean holder,
                          int expectGranted, double expectLevel, long expectTicketMillis) {
    return new Step(why, advanceMillis, want, need, holder, want > need ? 200 : 0, -1, 0,
        expectGranted, expectLevel, expectTicketMillis);
  }

  private static Step lease(String why, long advanceMillis, int want, int need, long holdMillis,
                            int expectGranted, double expectLevel) {
    return new Step(why, advanceMillis, want, need, false, holdMillis, -1, 0, expectGranted, expectLevel, 0);
  }

  private static Step queue(String why, long advanceMillis, int want, int need, int giveBackStep, int used,
                            long expectTicketMillis) {
    return new Step(why, advanceMillis, want, need, false, want > need ? 200 : 0, giveBackStep, used,
        0, -10, expectTicketMillis);
  }

  private static Step release(String why, long advanceMillis, int releaseStep, int used,
                              int expectGranted, double expectLevel) {
    return new Step(why, advanceMillis, 1, 1, false, 0, releaseStep, used, expectGranted, expectLevel, 0);
  }

  private static Step afterLoss(String why, Loss loss, long advanceMillis, int want, int need,
                                int expectGranted, double expectLevel, long expectTicketMillis) {
    return new Step(why, advanceMillis, want, need, false, 0, -1, 0, expectGranted, expectLevel,
        expectTicketMillis, loss, false);
  }

  /** A shadow-mode request: charged only what the bucket holds now; else the wait it would have had. */
  private static Step shadow(String why, long advanceMillis, int want, int need,
                             int expectGranted, double expectLevel, long expectTicketMillis) {
    return new Step(why, advanceMillis, want, need, false, want > need ? 200 : 0, -1, 0, expectGranted,
        expectLevel, expectTicketMillis, Loss.NONE, true);
  }

  /** A renewal (need 0, the shadow rule): only units the bucket holds now; else nothing written. */
  private static Step renewal(String why, long advanceMillis, int want,
                              int expectGranted, double expectLevel, long expectTicketMillis) {
    return new Step(why, advanceMillis, want, 0, false, 200, -1, 0, expectGranted, expectLevel,
        expectTicketMillis, Loss.NONE, true);
  }

  static final List<Step> STEPS = List.of(
      /* 0 */ ask("a new bucket is full: one unit is granted from 10", 0, 1, 1, false, 1, 10, 0),
      /* 1 */ ask("a lease takes the nine it asked for", 0, 9, 1, false, 9, 9, 0),
      /* 2 */ ask("an empty bucket reserves the next unit, due in 100 ms", 0, 1, 1, false, 1, 0, 0),
      /* 3 */ ask("cost 5 fits in the horizon (debt 6 of at most 10)", 0, 5, 5, false, 5, -1, 0),
      /* 4 */ ask("cost 5 more would be debt 11: not charged, a ticket in 100 ms", 0, 5, 5, false, 0, -6, 100).heldBackLocally(),
      /* 5 */ ask("cost 3 still fits beside the line (debt 9)", 0, 3, 3, false, 3, -6, 0),
      /* 6 */ ask("half a second later the ticket holder is charged", 500, 5, 5, true, 5, -4, 0),
      /* 7 */ ask("cost 8 does not fit: its turn opens in 700 ms", 0, 8, 8, false, 0, -9, 700).heldBackLocally(),
      /* 8 */ ask("one unit still fits", 0, 1, 1, false, 1, -9, 0),
      /* 9 */ ask("cost 2 queues behind the line: 700 ms + 800 ms", 0, 2, 2, false, 0, -10, 1500).heldBackLocally(),
      /* 10 */ ask("ten seconds later the bucket is full again, never more", 10_000, 10, 1, false, 10, 10, 0),
      /* 11 */ ask("a want beyond what fits is granted in part", 0, 25, 2, false, 10, 0, 0),
      /* 12 */ ask("the clock going back a second refills nothing", -1000, 1, 1, false, 0, -10, 100).heldBackLocally(),
      // Leases are held against the cap: the bucket refills only to capacity - held.
      /* 13 */ lease("ten seconds on, every lease has ended: full; a lease of 4 held for 1 s", 10_000, 5, 1, 1000, 5, 10),
      /* 14 */ ask("600 ms later the refill has stopped at capacity - held = 6", 600, 1, 1, false, 1, 6, 0),
      /* 15 */ release("releasing that lease with 1 of its 4 used gives 3 back: 5 + 3", 0, 13, 1, 1, 8),
      /* 16 */ lease("a lease of 3 held for 500 ms, never released", 0, 4, 1, 500, 4, 7),
      /* 17 */ ask("700 ms on: capped at 7 until the lease ended at 500 ms, then 2 more", 700, 1, 1, false, 1, 9, 0),
      /* 18 */ release("a release of a lease that has ended gives nothing back", 0, 16, 0, 1, 8),
      /* 19 */ lease("a cost-2 event's lease holds only the 4 units beyond its need", 0, 6, 2, 1000, 6, 7),
      /* 20 */ ask("800 ms on the refill has stopped at 10 - 4 = 6", 800, 1, 1, false, 1, 6, 0),
      /* 21 */ release("all 4 used: nothing comes back (still 6)...", 100, 19, 4, 1, 6),
      /* 22 */ ask("...but the cap has lifted: 5 + 3", 300, 1, 1, false, 1, 8, 0),
      /* 23 */ lease("a lease may reach into the horizon: 6 held units and 9 reserved", 0, 16, 1, 1000, 16, 7),
      /* 24 */ release("released at once, its 14 unused units go back (none fell due): -9 + 14", 0, 23, 1, 1, 5),
      // Places in line: a queued event may take more line than its need, for the events after it.
      /* 25 */ ask("cost 14 takes all that fits: 4 now and 10 as debt", 0, 14, 14, false, 14, 4, 0),
      /* 26 */ queue("queued with 4 more places behind its own: turn in 100 ms, line to 600 ms", 0, 5, 1, -1, 0, 100),
      /* 27 */ queue("the next queued event's turn comes after all five places", 0, 1, 1, -1, 0, 600).heldBackLocally(),
      /* 28 */ queue("giving back places with someone queued behind them shortens nothing", 0, 1, 1, 26, 0, 700),
      /* 29 */ queue("queued with 2 more places: turn at 800 ms, line to 1100 ms", 0, 3, 1, -1, 0, 800),
      /* 30 */ queue("giving back the 2 unused places at the end of the line shortens it", 0, 1, 1, 29, 0, 900),
      // A lease's reserved units are lost if they fall due unused; those still ahead go back.
      /* 31 */ lease("ten seconds on, full: a lease of 15 holds 9 units and reserves 6 (due +100..+600 ms)", 10_000, 16, 1, 1000, 16, 10),
      /* 32 */ release("350 ms on, 9 used: reserved 11-13 fell due unused and are lost, 14-16 go back: -2.5 + 3", 350, 31, 9, 1, 0.5),
      /* 33 */ lease("a lease of 3 units, all reserved (due +250, +350, +450 ms), held for 5 s", 0, 4, 1, 5000, 4, -0.5),
      /* 34 */ ask("reserved units do not lower the cap: 1.5 s on the bucket is full (not 10 - 3)", 1500, 1, 1, false, 1, 10, 0),
      // Redis loses the slot's data: paid reservations may still wait in the ladder.
      /* 35 */ afterLoss("the bucket and its slot's marker are lost: it starts empty under a full reach of reservations (horizon + 1 s: -20); one unit's turn is in 1100 ms", Loss.SLOT, 0, 1, 1, 0, -20, 1100),
      /* 36 */ ask("1.5 s later it has refilled to -5: cost 3 fits in the horizon", 1500, 3, 3, false, 3, -5, 0),
      /* 37 */ afterLoss("a reach after the loss, a bucket Redis lacks starts empty (0), not full", Loss.BUCKET, 500, 1, 1, 1, 0, 0),
      /* 38 */ afterLoss("a reach plus a full refill after the loss, it starts full", Loss.BUCKET, 1100, 1, 1, 1, 10, 0),
      // Shadow mode: what fits now is charged; nothing else is reserved, queued or put in line.
      /* 39 */ shadow("shadow: cost 5 fits the 9 held, charged as usual", 0, 5, 5, 5, 9, 0),
      /* 40 */ shadow("shadow: cost 6 does not fit the 4 held: not charged (no debt), it would have waited 200 ms", 0, 6, 6, 0, 4, 200),
      /* 41 */ shadow("shadow: cost 15 would have been queued beyond the horizon: not queued, its turn would be in 100 ms", 0, 15, 15, 0, 4, 100),
      /* 42 */ ask("enforced right after: still 4 (the shadow steps charged nothing), cost 14 fits the horizon", 0, 14, 14, false, 14, 4, 0),
      /* 43 */ ask("enforced cost 1 is queued at 100 ms: the shadow step 41 left no line (else 1600 ms)", 0, 1, 1, false, 0, -10, 100).heldBackLocally(),
      /* 44 */ shadow("shadow in debt: cost 1 would have queued behind that line (200 ms); nothing written", 0, 1, 1, 0, -10, 200).withoutALineLocally(100),
      /* 45 */ ask("enforced cost 1 queues behind the enforced line only: 200 ms", 0, 1, 1, false, 0, -10, 200).heldBackLocally(),
      /* 46 */ shadow("shadow, full again: a lease takes only the 10 units held (asked 16), none reserved", 3000, 16, 1, 10, 10, 0),
      /* 47 */ ask("enforced right after: the shadow lease left 0, not a debt, so cost 10 still fits the horizon", 0, 10, 10, false, 10, 0, 0),
      // Renewals: a lease asked for no event, ahead of need; only units the bucket holds now.
      /* 48 */ renewal("3 s on, full: a renewal of 6 takes 6 held units", 3000, 6, 6, 10, 0),
      /* 49 */ ask("the renewal is held against the cap: 4 left, cost 14 fits the horizon", 0, 14, 14, false, 14, 4, 0),
      /* 50 */ renewal("a renewal in debt charges nothing, reserves nothing and takes no place in line", 0, 5, 0, -10, 1000),
      /* 51 */ ask("enforced cost 1 right after is queued at 100 ms: the renewal left no line", 0, 1, 1, false, 0, -10, 100).heldBackLocally(),
      /* 52 */ release("releasing the renewal with 2 of its 6 used gives 4 back: -10 + 4", 0, 48, 2, 1, -6),
      // A lease's reserved units go back only from the end of the line of reservations.
      /* 53 */ lease("ten seconds on, full: a lease of 15 holds 9 units and reserves 6 (due +100..+600 ms)", 10_000, 16, 1, 1000, 16, 10),
      /* 54 */ ask("a ticket holder is charged 3 after it: due +700..+900 ms", 0, 3, 3, true, 3, -6, 0),
      /* 55 */ new Step("released with 9 used: its 6 reserved units are no longer the end of the line, none goes back (-9, else -3); cost 4 is queued, turn in 300 ms (else granted, at +700..+900 ms, sold twice)",
          0, 4, 4, false, 0, 53, 9, 0, -9, 300),
      // A wipe after late holders were charged: the rebuilt bucket never sells what they were promised.
      /* 56 */ ask("ten seconds on, full: cost 20 takes all that fits (10 now, 10 reserved)", 10_000, 20, 20, false, 20, 10, 0),
      /* 57 */ ask("cost 5 does not fit: a ticket in 500 ms", 0, 5, 5, false, 0, -10, 500).heldBackLocally(),
      /* 58 */ ask("the holder is 1.5 s late: cost 20 took the horizon meanwhile (10 now, 10 reserved)", 2000, 20, 20, false, 20, 10, 0),
      /* 59 */ ask("the late holder is charged past the horizon, within the reach: its units are due at +1.1..+1.5 s", 0, 5, 5, true, 5, -10, 0),
      /* 60 */ afterLoss("wipe after late holders were charged: the rebuilt bucket owes a full reach (-20, not a horizon: -10), so cost 1's turn is in 1100 ms (else 100 ms, its unit due at +1.1 s: sold twice)", Loss.SLOT, 0, 1, 1, 0, -20, 1100),
      /* 61 */ ask("a holder beyond the reach is queued again (its turn in 2500 ms), not charged (-35 would outrun the reach)", 0, 15, 15, true, 0, -20, 2500),
      // A change of quota (rate or capacity, from the registry): what was sold keeps its due times
      // and counts against the new rate. A raise with reservations sold turns them into an old line
      // at the old rate until the last of them; the bucket sells new - old beside it at once.
      /* 62 */ ask("ten seconds on, full again", 10_000, 1, 1, false, 1, 10, 0),
      /* 63 */ ask("lowered to 20/s with no debt: cost 29 takes all that fits, 9 now and 20 reserved over the next second (a full horizon at 20/s)", 0, 29, 29, false, 29, 9, 0)
          .at(AT_20).due(1000),
      /* 64 */ ask("raised to 100/s with that full horizon of debt: the 20 keep their times (an old line at 20/s for 1 s) and new events get 100 - 20 = 80/s at once: cost 1 at 0 (else -20), due in 12.5 ms (else 210 ms, once the debt is repaid at 100/s)", 0, 1, 1, false, 1, 0, 0)
          .at(AT_100).due(12.5),
      /* 65 */ ask("cost 79 takes the rest of the horizon at 80/s, its last unit due at +1 s (-1, else -21: units due from +220 ms, 12 a 100 ms with the old line's 2)", 0, 79, 79, false, 79, -1, 0)
          .at(AT_100).due(1000),
      /* 66 */ ask("500 ms on: 40 refilled at 80/s (-40, else -50); the horizon now reaches 500 ms past the old line, at 100/s there: cost 50 fits, due at +1 s", 500, 50, 50, false, 50, -40, 0)
          .at(AT_100).due(1000),
      /* 67 */ ask("lowered to 50/s within the old line (20/s for 500 ms more), with debt sold at 100/s: repaid at 50 - 20 = 30/s beside the line and 50/s after it, it ends no sooner than its reservations, so it is kept as it is (-90); while it is repaid nothing is reserved (else a unit sold now at 50/s would lengthen what a raise back must keep): cost 1's turn when the bucket holds it, in 2020 ms", 0, 1, 1, false, 0, -90, 2020)
          .at(AT_50).heldBackLocally(),
      /* 68 */ ask("lowered to 10/s, below the old line's 20/s: all that was sold folds back into units (-90 and the old line's 10 left: -100), repaid at 10/s: cost 1's turn when the bucket holds it, in 10.1 s", 0, 1, 1, false, 0, -100, 10_100)
          .heldBackLocally(),
      /* 69 */ ask("twenty seconds on, full again", 20_000, 5, 5, false, 5, 10, 0),
      /* 70 */ ask("raised to 100/s with no debt: nothing was sold ahead, so the new rate applies at once: cost 15, 10 of it due by +100 ms", 0, 15, 15, false, 15, 5, 0)
          .at(AT_100).due(100),
      /* 71 */ ask("capacity raised to 40: room, not tokens (still -10); cost 90 fits the horizon at 100/s", 0, 90, 90, false, 90, -10, 0)
          .at(WIDER).due(1000),
      /* 72 */ ask("capacity lowered to 5: two seconds on, the level has stopped at 5", 2000, 1, 1, false, 1, 5, 0)
          .at(NARROWER),
      /* 73 */ ask("cost 104 takes all that fits at 100/s: 4 now, 100 reserved over the next second", 0, 104, 104, false, 104, 4, 0)
          .at(AT_100).due(1000),
      /* 74 */ ask("lowered to 10/s with that debt: the 100 keep their times and count against the new rate (repaid at 10/s, as before the rule); nothing is reserved until it is repaid: cost 1's turn in 10.1 s, when the bucket holds it", 0, 1, 1, false, 0, -100, 10_100)
          .heldBackLocally(),
      // A change undone at once (a stale read of the quota decides one event by the old one):
      // nothing of the raise is lost but the moment it lasted.
      /* 75 */ ask("twenty seconds on at 20/s, full again (what the cut owed is repaid): cost 30 takes all that fits, 10 now and 20 reserved (a full horizon at 20/s)", 20_000, 30, 30, false, 30, 10, 0)
          .at(AT_20).due(1000),
      /* 76 */ ask("raised to 100/s: an old line at 20/s for 1 s, cost 1 due in 12.5 ms", 0, 1, 1, false, 1, 0, 0)
          .at(AT_100).due(12.5),
      /* 77 */ ask("100 ms on, one event decided by 20/s (a stale read): the debt (1 unit sold at 80/s beside the line) repaid at 20 - 20 = 0/s until the line ends is kept in units (-1), nothing reserved meanwhile: its turn in 1 s", 100, 1, 1, false, 0, -1, 1000)
          .at(AT_20).heldBackLocally(),
      /* 78 */ ask("100 ms on, back to 100/s: the debt repaid at 80/s ends no sooner than it was sold, so it is kept; 100 ms at 80/s refilled 8 (7): cost 10 fits, due in 37.5 ms (one old line at 100/s until the old one's end would have sold nothing new for 800 ms)", 100, 11, 10, false, 11, 7, 0)
          .at(AT_100).due(37.5),
      // Issue 34 (6): a bucket lost while leased. Its whole capacity may be in a lease whose holder
      // spends it until the lease ends, up to the hold after the loss: rebuilt from the reach
      // alone (2 s) with a hold of 3 s, the bucket was full again at 3 s while the holder could
      // still spend its 10 units: 20 in a moment. The caller names its hold on every call.
      /* 79 */ new Step("lost while leased, hold 3 s beyond the reach of 2 s: the rebuilt bucket starts a hold in debt (-30, not the reach's -20): cost 1's turn is in 2100 ms, when its unit (due in 3.1 s) fits the horizon (else 1100 ms: due in 2.1 s, beside the holder's units)",
          1000, 1, 1, false, 3000, -1, 0, 0, -30, 2100, Loss.SLOT, false),
      // Issue 34 (7): a bucket lost, then its quota cut before any call found the loss. It is
      // rebuilt at the rate in force, holding a reach of reservations at 10/s, but the lost one
      // sold them at 100/s; Redis lost that rate with it. Read as sold at the rate stored, a raise
      // back opened an old line at 10/s and sold 90/s beside it, among the lost 100/s.
      /* 80 */ ask("ten seconds on at 100/s, full: cost 110 takes all that fits, 10 now and 100 reserved over the next second", 10_000, 110, 110, false, 110, 10, 0)
          .at(AT_100).due(1000),
      /* 81 */ afterLoss("the slot is lost, and the quota cut to 10/s before any call found it: rebuilt under a reach of reservations at 10/s (-20); cost 1's turn in 1100 ms", Loss.SLOT, 0, 1, 1, 0, -20, 1100),
      /* 82 */ ask("raised back to 100/s at once: the rebuilt debt may hold reservations sold at a rate Redis lost (here 100/s, due until the loss plus the reach), so it folds back (-200) and nothing new is due before them: cost 90's turn in 2900 ms (else granted at 0 beside an old line at 10/s, 90/s due by +1 s among the lost 100/s)", 0, 90, 90, false, 0, -200, 2900)
          .at(AT_100).heldBackLocally());


  private TokenBucketSpecification() {}
}
