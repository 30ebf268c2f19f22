package io.sluice.dispatcher.dispatch.lane;

/** A {@link Pace} a test sets: its factor, and whether the dispatcher counts as having run late. */
public final class SetPace implements Pace {
  /** The factor every lane claims at. */
  public volatile double factor = 1;
  /** What {@link #lateSince} answers, whatever the instants. */
  public volatile boolean late;
  /** When a slot last fired late, or null: {@link #stalledSince} an instant before it is true. */
  public volatile Long stalledAtNanos;

  @Override
  public double factor() {
    return factor;
  }

  @Override
  public void slotFired(long nowNanos, long lateNanos) {}

  @Override
  public void callAnswered(Object lane, long nowNanos, long startedNanos, long excessNanos) {}

  @Override
  public boolean lateSince(long sinceNanos, long nowNanos) {
    return late;
  }

  @Override
  public boolean stalledSince(long sinceNanos) {
    Long at = stalledAtNanos;
    return at != null && at - sinceNanos >= 0;
  }
}
