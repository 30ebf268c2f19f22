package io.sluice.dispatcher.dispatch.lane;

/**
 * What a lane asks of the dispatcher's pace ({@link PaceGovernor}, shared by every lane of one
 * dispatcher through {@link DispatcherPace}): the factor its claims take of its rate, and where it
 * reports how late its slots fire. Thread-safe: lanes call it from the timer, the leak's and the
 * providers' threads.
 */
public interface Pace {
  /** The share of its rate a lane claims now, in ({@link PaceGovernor#FLOOR}, 1]. */
  double factor();

  /** A slot's timer task ran at {@code nowNanos}, {@code lateNanos} after its instant. */
  void slotFired(long nowNanos, long lateNanos);

  /**
   * A call of {@code lane} started at {@code startedNanos} was answered (2xx) at {@code nowNanos},
   * {@code excessNanos} slower than its lane's usual latency ({@link LaneSchedule#answered}).
   */
  void callAnswered(Object lane, long nowNanos, long startedNanos, long excessNanos);

  /**
   * Whether the dispatcher ran late at any time after {@code sinceNanos} (up to {@code nowNanos}):
   * a call in flight since then that timed out may have been held up by this process.
   */
  boolean lateSince(long sinceNanos, long nowNanos);

  /**
   * Whether any one slot of the dispatcher fired {@link PaceGovernor#LATE_MILLIS} ms or more late
   * after {@code sinceNanos}: the process stalled then, if only once, and calls due meanwhile may
   * have left together ({@link PaceGovernor#stalledSince}).
   */
  boolean stalledSince(long sinceNanos);

  /** Always at full pace, never late: a lane on its own (tests, tools). */
  Pace FULL = new Pace() {
    @Override
    public double factor() {
      return 1;
    }

    @Override
    public void slotFired(long nowNanos, long lateNanos) {}

    @Override
    public void callAnswered(Object lane, long nowNanos, long startedNanos, long excessNanos) {}

    @Override
    public boolean lateSince(long sinceNanos, long nowNanos) {
      return false;
    }

    @Override
    public boolean stalledSince(long sinceNanos) {
      return false;
    }
  };
}
