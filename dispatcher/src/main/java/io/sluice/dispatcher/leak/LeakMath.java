package io.sluice.dispatcher.leak;

/**
 * A provider's leak as pure arithmetic: the state and the clock go in, a decision and the next
 * state come out. {@code lua/leaky_bucket.lua} is this class line by line, run atomically in
 * Redis; {@link LocalLeakyBucket} runs it in process. A table-driven specification holds both to
 * the same numbers, and the script to exactly this class's results when fed Redis's clock.
 *
 * <h2>How is the leak designed, and why?</h2>
 *
 * <p><b>A schedule of slots, not a level.</b> A provider at rate r takes one call every
 * {@code 1/r} seconds, from all dispatcher instances together. The leak keeps the one number that
 * decides this, the latest slot it ever granted ({@code last}); the next slot is
 * {@code last + interval}, or now if that has passed. This is GCRA (the "generic cell rate
 * algorithm") with no burst tolerance: a provider idle for a minute gets its next call now, not a
 * minute's worth at once. At 50/s the interval is 20 000 us; a claim at t = 0 gets 0, the next one
 * (whoever makes it) 20 000, and so on.
 *
 * <p><b>Claims of n slots, up to a lookahead.</b> A round trip to Redis per call would cost as much
 * as the call. So a claim takes up to {@code wanted} consecutive slots, each no later than
 * {@code now + lookahead}: {@code first = max(now, last + interval, pausedUntil)}; if first is
 * beyond the lookahead nothing is granted and the caller may retry at {@code first - lookahead};
 * else {@code granted = min(wanted, 1 + floor((now + lookahead - first) / interval))}. At 50/s with
 * a 100 ms lookahead one claim on an idle provider returns up to 6 slots (0, 20, ..., 100 ms). A
 * slot granted is spent: another instance's next claim starts after it. The lookahead is kept short
 * because slots granted cannot be recalled when a 429 arrives.
 *
 * <p><b>Whole microseconds, rounded up.</b> {@code interval = ceil(1e6 / (rate * factor))}, so the
 * spacing is never below {@code 1e6 / rate}: at 3/s the interval is 333 334 us: half a call a day too
 * few, never one too many. (At rates above 1e6/s every slot is 1 us apart.)
 *
 * <p><b>The invariant: in any window of length T at most {@code rate * T + 1} slots.</b> Every
 * claim, from whichever instance, reads the {@code last} written by the claim before it (Redis
 * runs the script alone, here a lock does), and its first slot is at least
 * {@code last + interval}; its own slots are {@code interval} apart. So the slots ever granted,
 * in the order they were granted, are increasing and each is at least
 * {@code ceil(1e6 / (rate * factor)) >= 1e6 / rate} after the one before (factor &lt;= 1). k slots
 * inside a window of length T therefore span {@code (k - 1) * 1e6 / rate <= T} microseconds:
 * {@code k <= rate * T / 1e6 + 1}. Neither the claimers' interleaving nor the clock enter the
 * argument; the clock only decides how far behind "now" the schedule may lag.
 *
 * <p><b>A missing last slot holds back one lookahead ({@link Memory#LOSABLE}, as in Redis).</b>
 * The argument above needs {@code last}. When the key is missing (a provider never used, or Redis lost it: a restart without persistence,
 * an eviction, a failover to a lagging replica), the latest slot granted before the loss lay at
 * most one lookahead past the loss, which is no later than now. So a missing {@code last} reads as
 * {@code now + lookahead}, and the next slot comes one interval after that: the invariant holds
 * across a wipe, at the cost of one lookahead plus one interval of waiting for the first call after
 * it. (Every instance claims with the deployment's one configured lookahead.) The key outlives its
 * last decision by an hour, so an idle provider pays this only after an hour without calls. A
 * state kept in process ({@link Memory#KEPT}) cannot be lost: there a missing {@code last} means no
 * slot yet, and the first slot is now.
 *
 * <p><b>429: pause; cut the rate only when the provider refuses again.</b> A 429 or 503 says the
 * provider is overloaded now. {@link #throttled} always pauses: no slot starts before
 * {@code now + Retry-After} (the latest pause wins). A single 429 costs no more than that: the
 * provider said how long to stay away, and a strict provider refuses a call that came a moment
 * early (timing jitter) as readily as one from a rate that is too high. Only a repeat is evidence
 * that the rate itself is too high: a 429 to a call claimed at or after the previous pause ended,
 * while that end is less than {@code recovery} ago. Such a 429 halves the effective rate (to at
 * least {@code minRateFactor} of the configured one) and records the time of the cut. The calls in
 * flight when a 429 arrives were claimed before its pause ended, so their 429s (often a dozen,
 * arriving together) pause but never cut. At 50/s: a 429 at t with Retry-After 1 s pauses until
 * t + 1 s and leaves the rate at 50/s; five more from calls claimed before t + 1 s change nothing;
 * a 429 at t + 3 s to a call claimed at t + 2 s cuts to 25/s (interval 40 ms), and one to a call
 * claimed after that second pause cuts to 12.5/s. Slots already granted keep their times; the next
 * slot is a full new interval after the last one, because the interval is looked up when a claim
 * is made, not stored.
 *
 * <p><b>Gradual recovery.</b> After a cut to {@code cf} at {@code cutAt} the factor climbs in a
 * straight line back to 1 over {@code recovery}, however deep the cut:
 * {@code factor(t) = min(1, cf + (t - cutAt) / recovery * (1 - cf))}. With a cut to 0.5 and a 30 s
 * recovery the provider gets 25/s at once, 37.5/s after 15 s and 50/s after 30 s. A cut during
 * recovery halves the factor reached so far (0.75 at 15 s becomes 0.375) and the climb restarts
 * from there. This is AIMD's additive increase, stated as a duration because that is what the
 * configuration says ("how long a cut leak rate takes to climb back"). A claim uses the factor at
 * its own now for all its slots, which for slots up to a lookahead later is a hair conservative.
 *
 * <p><b>The clock never goes back.</b> The bucket's clock is Redis {@code TIME}, which can step
 * back on a failover to a replica whose clock is behind; the state keeps the latest time seen and
 * decides as of {@code max(that, now)}. Slots are never handed out in the bucket's past.
 *
 * <p><b>Arithmetic.</b> Instants and intervals are whole microseconds (longs here, doubles holding
 * integers below 2^53 in Lua: exact). The factor is a double computed by the same operations in
 * the same order as the script, so the two agree to the last bit.
 */
final class LeakMath {
  /** Whether the state can be lost between decisions, which decides what a missing last slot means. */
  public enum Memory {
    /** In process: a missing last slot means none was granted yet. */
    KEPT,
    /** In Redis (and its mirror): a missing last slot may have been lost up to a lookahead ahead. */
    LOSABLE
  }

  private final LeakConfig config;
  private final Memory memory;

  /** The leak of a state kept in process ({@link Memory#KEPT}). */
  public LeakMath(LeakConfig config) {
    this(config, Memory.KEPT);
  }

  public LeakMath(LeakConfig config, Memory memory) {
    this.config = config;
    this.memory = memory;
  }

  /** A claim's answer and the state the bucket holds after it. */
  public record ClaimStep(SlotClaim claim, LeakState next) {}

  /** A 429's effect and the state the bucket holds after it. */
  public record ThrottleStep(ThrottleDecision decision, LeakState next) {}

  public LeakConfig config() {
    return config;
  }

  public Memory memory() {
    return memory;
  }

  /**
   * Claims up to {@code wanted} slots, each within {@code lookaheadMicros} of now.
   *
   * @param nowMicros the clock; if it is behind the state's clock, the state's clock is used
   */
  public ClaimStep claim(LeakState state, long nowMicros, double ratePerSecond, int wanted, long lookaheadMicros) {
    JointStep step = claim(state, null, nowMicros, ratePerSecond, 0, wanted, lookaheadMicros);
    return new ClaimStep(step.claim(), step.next());
  }

  /** A joint claim's answer, and the states of the lane's leak and of the provider's total after it. */
  public record JointStep(SlotClaim claim, LeakState next, LeakState nextTotal) {}

  /**
   * Claims up to {@code wanted} slots that are each one slot of this leak (an endpoint's, at
   * {@code ratePerSecond}) AND one slot of the provider's total line (at
   * {@code totalPerSecond}), taken together at one instant: see "Two lines at once" in
   * {@link ProviderTotal}. The total line keeps only its last slot and its clock
   * ({@link LeakState#lastSlotMicros()}, {@link LeakState#clockMicros()}); it is never paused or
   * cut (a 429 is one endpoint's), and a missing last slot reads as this leak's does.
   *
   * <p>The first slot is {@code max(now, last + interval, pause, totalLast + totalInterval)};
   * the claim's slots are {@code max(interval, totalInterval)} apart, so each is at least one
   * interval after the previous slot of either line; both lines' last slot becomes the claim's
   * last. The answer's {@code intervalMicros} is that joint spacing.
   */
  public JointStep claim(LeakState state, LeakState total, long nowMicros, double ratePerSecond,
      double totalPerSecond, int wanted, long lookaheadMicros) {
    requirePositive(ratePerSecond);
    if (total != null) {
      requirePositive(totalPerSecond);
    }
    if (wanted < 1) {
      throw new IllegalArgumentException("wanted must be at least 1, not " + wanted);
    }
    if (lookaheadMicros < 0) {
      throw new IllegalArgumentException("lookahead must not be negative, not " + lookaheadMicros);
    }
    long now = Math.max(nowMicros, state.clockMicros());
    if (total != null) {
      now = Math.max(now, total.clockMicros());
    }
    double factor = factorAt(state, now);
    long interval = intervalMicros(ratePerSecond, factor);

    long last = lastOrLost(state, now, lookaheadMicros);
    long first = now;
    if (last != LeakState.NEVER) {
      first = Math.max(first, last + interval);
    }
    first = Math.max(first, state.pausedUntilMicros());
    long totalLast = LeakState.NEVER;
    if (total != null) {
      long totalInterval = intervalMicros(totalPerSecond, 1.0);
      totalLast = lastOrLost(total, now, lookaheadMicros);
      if (totalLast != LeakState.NEVER) {
        first = Math.max(first, totalLast + totalInterval);
      }
      interval = Math.max(interval, totalInterval);
    }
    long horizon = now + lookaheadMicros;

    int granted = 0;
    if (first <= horizon) {
      // (horizon - first) >= 0, so long division is floor, as math.floor(a / b) is in Lua for
      // integers this small (a / b is never within 2^-53 of the next integer up).
      granted = (int) Math.min(wanted, 1 + (horizon - first) / interval);
      last = first + (granted - 1) * interval;
      totalLast = last;
    }
    long nextFree = granted > 0 ? last + interval : first;
    long retryAt = Math.max(now, nextFree - lookaheadMicros);

    LeakState next = new LeakState(last, state.cutFactor(), state.cutAtMicros(), state.pausedUntilMicros(), now);
    LeakState nextTotal = total == null ? null
        : new LeakState(totalLast, 1.0, LeakState.NEVER, LeakState.NEVER, now);
    return new JointStep(new SlotClaim(now, granted, first, interval, retryAt, factor), next,
        nextTotal);
  }

  /** The last slot of {@code state}; a missing one, where it could be lost, one lookahead ahead. */
  long lastOrLost(LeakState state, long now, long lookaheadMicros) {
    long last = state.lastSlotMicros();
    if (last == LeakState.NEVER && memory == Memory.LOSABLE) {
      // A lost last slot lay at most one lookahead ahead (see the class comment).
      last = now + lookaheadMicros;
    }
    return last;
  }

  /**
   * Records a 429/503: pauses until {@code now + retryAfterMillis}, and halves the rate (to at least
   * {@link LeakConfig#minRateFactor()}) only for a repeat: a call claimed at or after the previous
   * pause ended, less than {@code recovery} ago.
   *
   * @param ratePerSecond   unused by the decision (the factor is a ratio); taken so that every
   *                        implementation may size the state's lifetime
   * @param startedAtMicros when the throttled call's slot was claimed or began, on the bucket's
   *                        clock
   */
  public ThrottleStep throttled(LeakState state, long nowMicros, double ratePerSecond, long retryAfterMillis,
      long startedAtMicros) {
    requirePositive(ratePerSecond);
    if (retryAfterMillis < 0) {
      throw new IllegalArgumentException("retryAfter must not be negative, not " + retryAfterMillis);
    }
    long now = Math.max(nowMicros, state.clockMicros());
    long pause = state.pausedUntilMicros();
    boolean cut = pause != LeakState.NEVER && startedAtMicros >= pause
        && now - pause < config.recoveryMicros();
    long pausedUntil = Math.max(pause, now + retryAfterMillis * 1000);
    double factor = factorAt(state, now);
    double cutFactor = state.cutFactor();
    long cutAt = state.cutAtMicros();
    if (cut) {
      cutFactor = Math.max(config.minRateFactor(), factor * 0.5);
      cutAt = now;
      factor = cutFactor;
    }
    LeakState next = new LeakState(state.lastSlotMicros(), cutFactor, cutAt, pausedUntil, now);
    return new ThrottleStep(new ThrottleDecision(now, cut, factor, pausedUntil), next);
  }

  /** The effective rate over the configured one at {@code nowMicros}: climbing from the last cut to 1. */
  public double factorAt(LeakState state, long nowMicros) {
    if (state.cutAtMicros() == LeakState.NEVER) {
      return 1.0;
    }
    double cf = state.cutFactor();
    double elapsed = nowMicros - state.cutAtMicros();
    return Math.min(1.0, cf + elapsed / config.recoveryMicros() * (1 - cf));
  }

  /** The spacing of slots at {@code ratePerSecond * factor}, rounded up to a whole microsecond. */
  public static long intervalMicros(double ratePerSecond, double factor) {
    return (long) Math.ceil(1_000_000 / (ratePerSecond * factor));
  }

  private static void requirePositive(double ratePerSecond) {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("rate must be a positive number, not " + ratePerSecond);
    }
  }
}
