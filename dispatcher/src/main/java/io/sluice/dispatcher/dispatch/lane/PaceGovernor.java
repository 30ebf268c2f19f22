package io.sluice.dispatcher.dispatch.lane;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How fast this dispatcher's lanes claim their slots, as a factor of their rates: 1 while the
 * process keeps its slots on time, less while it cannot. Every lane, a provider's and a tenant's
 * endpoint's, claims at {@code rate * factor} ({@link ProviderLane}); the slots it does not claim
 * are left in the leak for other instances, never claimed and dropped.
 *
 * <h2>Why the dispatcher must slow itself down</h2>
 *
 * Asked for more calls than its CPU can make (1,000 endpoints at 2/s on 2 shared cores), a
 * dispatcher that claims every slot hands its calls to the HTTP client on schedule, but they leave
 * the process late and bunched: a strict endpoint (2 in any second, no burst) answers 429, the
 * client's own timeout ends calls the endpoint answered in a millisecond (median latency 1.8 s
 * against a 2 s timeout), and every 429 and timeout comes back as a retry, more work for the same
 * CPU. Fewer calls, each on time, make more deliveries than all of them late.
 *
 * <h2>Two signals, both blind to a slow provider</h2>
 *
 * <ul>
 *   <li><b>How late the timer runs the slots</b> ({@link #fired}). One timer thread starts every
 *       slot of every lane at its instant; how late it runs one is how far behind the process is,
 *       whatever takes its CPU (its own HTTP client and Kafka threads, the broker next door, a
 *       long GC). A slow provider does not move it: calls are asynchronous, so an endpoint
 *       answering in 10 s holds calls in flight, not the timer. A slot is late from
 *       {@value #LATE_MILLIS} ms (a busy 2-core machine's timer is often 3 to 10 ms late, and
 *       20 ms cut the pace in half-seconds that made no 429).
 *   <li><b>Answers slower than their lane's usual</b> ({@link #answered}). Measured from outside,
 *       the HTTP client fell behind first (its selector and completion threads short of CPU) while
 *       the timer was mostly on time: the endpoints answered in a millisecond, the answers came
 *       back 0.25 to 2 s later, then calls timed out and strict endpoints saw them bunched. Each
 *       answer is compared with its own lane's usual latency ({@link LaneSchedule#answered}, a
 *       slow moving average of its 2xx answers), so a provider that is always slow is not slow
 *       here. The answers vote by lane: a lane is slow in a window when half of its answers or
 *       more are {@value #SLOW_MILLIS} ms or more slower than usual, and a window is late only
 *       when at least {@value #MIN_LANES} lanes answered in it and half of them or more were
 *       slow. So one provider, however much of the traffic it carries, cannot slow the others by
 *       turning slow (each of its answers would otherwise be a vote, and a provider answering
 *       most of the calls could hold every lane at the floor); many lanes of one slow host still
 *       can, until their usual catches up (a few dozen answers each). Timeouts and failed
 *       connections do not count: an outage of every endpoint must not read as overload.
 * </ul>
 * Not used: calls in flight and timeouts in this process's client, which a slow or failing
 * provider raises exactly as overload does, and which come a whole timeout after the lateness
 * that caused them. A timeout of a call that was in flight while the timer ran late
 * ({@link #lateSince}: the timer's signal only, which no provider moves) is not held against its
 * endpoint's health.
 *
 * <h2>The rule: cut fast on sustained lateness, recover slowly</h2>
 *
 * Time is cut into half-second windows. A window is <b>late</b> when at least
 * {@value #MIN_SLOTS} slots fired in it and half of them or more were late, or at least
 * {@value #MIN_ANSWERS} answers of at least {@value #MIN_LANES} lanes came in it and half of
 * those lanes or more were slow. Then:
 * <ul>
 *   <li>two late windows in a row cut the factor to {@value #CUT} of itself, never below
 *       {@value #FLOOR}; the count starts again after a cut, so cuts come at least a second apart
 *       while the lateness lasts. Answers of calls started before a cut are left out: they were
 *       started at the old pace;
 *   <li>after a cut the factor holds {@value #HOLD_WINDOWS} windows (2 s), the time the answers
 *       of calls started at the new pace take to come; then every window that is not late adds
 *       {@value #STEP} back, up to 1, and a quarter of that from {@value #NEAR} of the factor the
 *       last bout of lateness began at (the first of its cuts came from it): a process that ran
 *       late there comes back to it slowly, in 8 s from 0.9 to 1, where answers that turn slow
 *       are seen before its calls bunch (measured: the answers' latency rose over 1 to 4 s
 *       before the timeouts and 429s, and at the faster step the factor went past the level in
 *       that time). From the floor to full pace in 26 s, from a single cut from full pace in 9 s;
 *   <li>a window with fewer slots and answers says nothing of lateness, and counts as on time: a
 *       dispatcher with little to send is not slowed, and one idle for a while comes back at full
 *       pace.
 * </ul>
 * <b>A single stall does not cut.</b> A GC pause or a stalled core makes every slot due during it
 * late, all of them run when it ends, so they fall into one window: one late window, then on time.
 * Only lateness that lasts a second or more cuts; a stall whose catch-up spans two windows cuts
 * once, to 0.75, back at full pace 9 s later. At the floor the dispatcher still makes a tenth
 * of its calls: the cut is for overload the process can cure by doing less; a machine that cannot
 * give it even that much CPU shows as the floor held (the gauge, the log).
 *
 * <p>Pure: every instant is passed in (the lanes' monotonic nanoseconds). Not thread-safe:
 * {@link DispatcherPace} calls it under its monitor.
 */
public final class PaceGovernor {
  /** The lowest factor: the lanes never claim less than this share of their rates. */
  public static final double FLOOR = 0.1;
  /** A cut multiplies the factor by this. */
  static final double CUT = 0.75;
  /** What each window on time gives back. */
  static final double STEP = 0.025;
  /** A slot fired this late or later counts as late. */
  static final long LATE_MILLIS = 50;
  static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(LATE_MILLIS);
  /** The windows lateness is judged over. */
  static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  /** Fewer slots in a window say nothing of lateness. */
  static final int MIN_SLOTS = 8;
  /** An answer this much slower than its lane's usual latency, or more, counts as slow. */
  static final long SLOW_MILLIS = 250;
  static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(SLOW_MILLIS);
  /** Fewer answers in a window say nothing of slowness. */
  static final int MIN_ANSWERS = 8;
  /** Answers of fewer lanes in a window say nothing of slowness: one provider is not overload. */
  static final int MIN_LANES = 4;
  /**
   * After a cut the factor holds this many windows before it may recover: the answers of calls
   * started at the new pace take up to a timeout to come.
   */
  static final int HOLD_WINDOWS = 4;
  /** Late windows in a row that make a cut. */
  static final int LATE_WINDOWS = 2;
  /** Within this share of the level the last lateness began at, the factor comes back slowly. */
  static final double NEAR = 0.9;
  /** What each window on time gives back near that level: a quarter of {@link #STEP}. */
  static final double SLOW_STEP = STEP / 4;
  /** Past this many empty windows the factor is back at 1 whatever it was. */
  private static final long WINDOWS_TO_RECOVER = (long) Math.ceil(NEAR / STEP)
      + (long) Math.ceil((1 - NEAR) / SLOW_STEP) + 1;

  /** Where the factor stands. */
  public enum Band {
    /** 1: every lane at its rate. */
    FULL,
    /** Below 1, above the floor. */
    SLOWED,
    /** At the floor: slowing down has not made the process keep its slots. */
    FLOOR
  }

  private double factor = 1;
  private long windowStart;
  private int slots;
  private int lateSlots;
  /** This window's answers by lane: {answers, slow ones}. */
  private final Map<Object, int[]> answersByLane = new IdentityHashMap<>();
  private int lateStreak;
  /** Windows left before the factor may recover from the last cut. */
  private int hold;
  /** When the last cut was made: answers of calls started before say nothing of the new pace. */
  private long lastCutNanos;
  private boolean cutAny;
  /**
   * The factor the last bout of lateness began at (the first of its cuts came from it): near it,
   * the factor comes back a quarter as fast.
   */
  private double ceiling = 1;
  /** The factor has come back some since the last cut: a cut now begins a new bout. */
  private boolean recoveredSinceCut;
  /** Whether a window's timer was ever late, and when the last such window ended. */
  private boolean everLate;
  private long lastLateEndNanos;
  /** What made the last late window late, for the log. */
  private String lastLateWhy = "";
  /** Whether any slot ever fired late, and when the last one that did fired. */
  private boolean anyLateSlot;
  private long lastLateSlotNanos;

  /** @param nowNanos the first window starts now */
  public PaceGovernor(long nowNanos) {
    this.windowStart = nowNanos;
  }

  /** A slot's timer task ran at {@code nowNanos}, {@code lateNanos} after the slot's instant. */
  public void fired(long nowNanos, long lateNanos) {
    advance(nowNanos);
    slots++;
    if (lateNanos >= LATE_NANOS) {
      lateSlots++;
      anyLateSlot = true;
      lastLateSlotNanos = nowNanos;
    }
  }

  /**
   * A call of {@code lane} started at {@code startedNanos} was answered at {@code nowNanos},
   * {@code excessNanos} slower than its lane's usual latency (negative: faster). Only answers: a timeout or a failed
   * connection is as much a provider's outage as this process's doing, and an outage of every
   * endpoint must not read as overload. Answers of calls started before the last cut are left
   * out: they were started at the old pace.
   */
  public void answered(Object lane, long nowNanos, long startedNanos, long excessNanos) {
    advance(nowNanos);
    if (cutAny && startedNanos - lastCutNanos < 0) {
      return;
    }
    int[] votes = answersByLane.computeIfAbsent(lane, l -> new int[2]);
    votes[0]++;
    if (excessNanos >= SLOW_NANOS) {
      votes[1]++;
    }
  }

  /** The factor in force at {@code nowNanos}: (floor, 1]. */
  public double factor(long nowNanos) {
    advance(nowNanos);
    return factor;
  }

  /** The band of the factor at {@code nowNanos}. */
  public Band band(long nowNanos) {
    double f = factor(nowNanos);
    return f >= 1 ? Band.FULL : f <= FLOOR ? Band.FLOOR : Band.SLOWED;
  }

  /**
   * Whether the timer ran late (its slots, not the answers, which a provider moves too) at any
   * time after {@code sinceNanos}, as far as windows closed by
   * {@code nowNanos} and the one in progress tell: a call in flight since then may have been held
   * up by this process, not by its provider.
   */
  public boolean lateSince(long sinceNanos, long nowNanos) {
    advance(nowNanos);
    return (everLate && lastLateEndNanos - sinceNanos > 0) || timerLate();
  }

  /**
   * Whether any one slot fired {@value #LATE_MILLIS} ms or more late at or after
   * {@code sinceNanos}: the process stalled, if only once. Finer than {@link #lateSince}, which
   * needs half of a window's slots late: a single stall of a tenth of a second makes a few slots
   * late among a window's dozens and cuts no pace, yet the calls due in it may leave together
   * (held in the HTTP client while the process had no CPU), and a strict provider refuses the
   * bunch. A 429 then says nothing of the rate ({@code ProviderLane}).
   */
  public boolean stalledSince(long sinceNanos) {
    return anyLateSlot && lastLateSlotNanos - sinceNanos >= 0;
  }

  /** What made the last late window late, for the log. */
  public String lastLateWindow() {
    return lastLateWhy;
  }

  /** Whether the window so far is late: its slots fired late, or its answers came slow. */
  private boolean late() {
    return timerLate() || answersSlow();
  }

  private boolean timerLate() {
    return slots >= MIN_SLOTS && 2 * lateSlots >= slots;
  }

  /** At least {@link #MIN_LANES} lanes answered, and half of them or more mostly slowly. */
  private boolean answersSlow() {
    if (answersByLane.size() < MIN_LANES) {
      return false;
    }
    int answers = 0;
    int slowLanes = 0;
    for (int[] votes : answersByLane.values()) {
      answers += votes[0];
      if (2 * votes[1] >= votes[0]) {
        slowLanes++;
      }
    }
    return answers >= MIN_ANSWERS && 2 * slowLanes >= answersByLane.size();
  }

  /** Closes every window that ended by {@code nowNanos}. */
  private void advance(long nowNanos) {
    if (nowNanos - windowStart < WINDOW_NANOS) {
      return;
    }
    close(late(), timerLate());
    windowStart += WINDOW_NANOS;
    slots = 0;
    lateSlots = 0;
    answersByLane.clear();
    long empty = (nowNanos - windowStart) / WINDOW_NANOS;
    for (long i = 0; i < Math.min(empty, WINDOWS_TO_RECOVER + HOLD_WINDOWS); i++) {
      close(false, false);
    }
    windowStart += empty * WINDOW_NANOS;
  }

  private void close(boolean late, boolean timerLate) {
    if (timerLate) {
      everLate = true;
      lastLateEndNanos = windowStart + WINDOW_NANOS;
    }
    if (!late) {
      lateStreak = 0;
      if (hold > 0) {
        hold--;
        return;
      }
      // Slowly only between 0.9 of the level the lateness began at and that level: above it
      // (a bout that began below 1 and has passed its level), at the full step.
      factor = Math.min(1,
          factor + (factor >= NEAR * ceiling && factor < ceiling ? SLOW_STEP : STEP));
      recoveredSinceCut = true;
      if (factor > 1 - 1e-9) {
        factor = 1;
      }
      return;
    }
    lastLateWhy = timerLate
        ? lateSlots + " of " + slots + " slots fired " + LATE_MILLIS + " ms or more late"
        : "half or more of the " + answersByLane.size() + " lanes that answered were "
            + SLOW_MILLIS + " ms or more slower than their usual";
    lateStreak++;
    if (hold > 0) {
      hold--;
    }
    if (lateStreak >= LATE_WINDOWS) {
      if (recoveredSinceCut || !cutAny) {
        ceiling = factor;
      }
      recoveredSinceCut = false;
      factor = Math.max(FLOOR, factor * CUT);
      lateStreak = 0;
      hold = HOLD_WINDOWS;
      cutAny = true;
      lastCutNanos = windowStart + WINDOW_NANOS;
    }
  }
}
