package io.sluice.dispatcher.dispatch.lane;

/**
 * When a lane can take an entry it has no room or no turn for now, so that the entry waits in
 * Kafka (round the delay ladder) instead of in memory, and comes back at its turn. Pure: time is
 * passed in; one per lane, owned under the lane's monitor.
 *
 * <h2>The turn</h2>
 * An entry parked now is served after the {@code queued} entries ahead of it in the lane and
 * after every entry parked before it that has not come back yet, at the lane's paced rate (its
 * limits' sustained rate times the dispatcher's pace), and not before the lane may call again at
 * all ({@code readyAtNanos}: the end of a provider's {@code Retry-After}, a disabled endpoint's
 * next probe). So the parked entries of a lane are spaced one interval apart behind a tail that
 * moves with each one parked, and come back as the lane has room for them.
 *
 * <p>Why the paced rate and not what the lane achieved lately: an estimate taken while calls time
 * out (8 in flight taking 2 s: 4/s at a provider allowing 100/s) sent overflows away for minutes,
 * and the provider sat idle for 61 s and 103 s after the faults ended while over 1,000 events
 * waited (issue 39). Back too early, an entry finds the buffer full and is parked again, re-judged
 * at the pace of that moment: it costs a record, never an idle provider.
 *
 * <h2>Never more than {@link #RECHECK_NANOS} past the lane's readiness</h2>
 * The paced rate is itself an estimate: an answer may hold a learned limit at its floor for a few
 * seconds. A chaos run showed it: a lane parked 670 entries behind a tail 46 minutes ahead, worked
 * out at a floor that lifted seconds later, and its provider sat idle with them due. So no entry
 * is parked further than {@link #RECHECK_NANOS} past the moment the lane may call again; beyond
 * that it comes back and is judged again (a record every 10 s while it waits, the price of a
 * bound on idleness). And an entry coming back from a park that finds the buffer still full
 * ({@code returning}) is parked for its turn behind what is queued only, never behind the tail:
 * it was ahead of the entries parked after it, and sending it to the back would make it wait the
 * whole backlog again.
 */
final class ParkingSchedule {
  /** Below this rate a lane is treated as this slow (a parked entry still comes back). */
  static final double MIN_PER_SECOND = 0.01;
  /** The farthest past the lane's readiness an entry is parked at once. */
  public static final long RECHECK_NANOS = 10_000_000_000L;
  /** When the last entry parked is due; meaningless before the first. */
  private long tailNanos;
  private boolean parked;

  /**
   * When an entry parked now can be taken, and the tail moves there (unless it is returning).
   *
   * @param queued       entries ahead of it in the lane now
   * @param perSecond    the lane's paced rate
   * @param readyAtNanos when the lane may call again at all (in the past: it may now)
   * @param returning    the entry comes back from a park and found the buffer still full: its
   *                     turn is behind what is queued, not behind the tail
   */
  public long park(long nowNanos, int queued, double perSecond, long readyAtNanos,
      boolean returning) {
    long interval = intervalNanos(perSecond);
    long start = readyAtNanos - nowNanos > 0 ? readyAtNanos : nowNanos;
    long limit = start + RECHECK_NANOS;
    long due = start + Math.max(1, queued) * interval;
    if (!returning && parked && tailNanos - nowNanos > 0 && tailNanos + interval - due > 0) {
      due = tailNanos + interval;
    }
    if (due - limit > 0) {
      due = limit;
    }
    if (!returning) {
      tailNanos = due;
      parked = true;
    }
    return due;
  }

  /** {@link #park(long, int, double, long, boolean)} of an entry not returning from a park. */
  public long park(long nowNanos, int queued, double perSecond, long readyAtNanos) {
    return park(nowNanos, queued, perSecond, readyAtNanos, false);
  }

  /**
   * How many queued entries the lane keeps in memory: those it can call within
   * {@code keepNanos} from now, and at least one (the next call, or a disabled endpoint's probe).
   */
  public static int keeps(long nowNanos, double perSecond, long readyAtNanos, long keepNanos) {
    long start = readyAtNanos - nowNanos > 0 ? readyAtNanos : nowNanos;
    long window = nowNanos + keepNanos - start;
    if (window <= 0) {
      return 1;
    }
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, window / intervalNanos(perSecond)));
  }

  static long intervalNanos(double perSecond) {
    return (long) Math.ceil(1e9 / Math.max(MIN_PER_SECOND, perSecond));
  }
}
