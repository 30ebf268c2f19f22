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
 * moves with each one parked: a backlog of 5,000 at 2/s comes back over 2,500 s, each entry once,
 * exactly when the lane has room for it.
 *
 * <p>Why the paced rate and not what the lane achieved lately: an estimate taken while calls time
 * out (8 in flight taking 2 s: 4/s at a provider allowing 100/s) sent overflows away for minutes,
 * and the provider sat idle for 61 s and 103 s after the faults ended while over 1,000 events
 * waited (issue 39). Back too early, an entry finds the buffer full and is parked again behind the
 * tail, re-judged at the pace of that moment: it costs a record, never an idle provider.
 */
public final class ParkingSchedule {
  /** Below this rate a lane is treated as this slow (a parked entry still comes back). */
  static final double MIN_PER_SECOND = 0.01;
  /** When the last entry parked is due; meaningless before the first. */
  private long tailNanos;
  private boolean parked;

  /**
   * When an entry parked now can be taken, and the tail moves there.
   *
   * @param queued       entries ahead of it in the lane now
   * @param perSecond    the lane's paced rate
   * @param readyAtNanos when the lane may call again at all (in the past: it may now)
   */
  public long park(long nowNanos, int queued, double perSecond, long readyAtNanos) {
    long interval = intervalNanos(perSecond);
    long start = readyAtNanos - nowNanos > 0 ? readyAtNanos : nowNanos;
    long due = start + Math.max(1, queued) * interval;
    if (parked && tailNanos - nowNanos > 0 && tailNanos + interval - due > 0) {
      due = tailNanos + interval;
    }
    tailNanos = due;
    parked = true;
    return due;
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
