package io.sluice.dispatcher.dispatch.lane;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One dispatcher's {@link PaceGovernor}, shared by all its lanes: the lanes report their slots'
 * lateness from the timer thread, read the factor on every claim (a volatile read, no lock), and
 * the dispatcher's loop {@link #tick}s it so the factor recovers, and the gauge moves, while no
 * slot fires. Logs each change of {@link PaceGovernor.Band}, at most one line every
 * {@value #LOG_EVERY_SECONDS} s (a change within that time is logged when it is up, if it still
 * holds).
 */
public final class DispatcherPace implements Pace {
  private static final Logger LOG = LoggerFactory.getLogger(DispatcherPace.class);
  static final long LOG_EVERY_SECONDS = 10;
  private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(LOG_EVERY_SECONDS);

  private final PaceGovernor governor;
  private final LongSupplier nanoTime;
  private volatile double factor = 1;
  private PaceGovernor.Band band = PaceGovernor.Band.FULL;
  private PaceGovernor.Band logged = PaceGovernor.Band.FULL;
  private long loggedAtNanos;
  private boolean loggedAny;
  private long slowedSinceNanos;
  private double lowest = 1;

  /** @param nanoTime the lanes' monotonic clock */
  public DispatcherPace(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.governor = new PaceGovernor(nanoTime.getAsLong());
  }

  @Override
  public double factor() {
    return factor;
  }

  @Override
  public void slotFired(long nowNanos, long lateNanos) {
    Line line;
    synchronized (this) {
      governor.fired(nowNanos, lateNanos);
      line = update(nowNanos);
    }
    log(line);
  }

  @Override
  public void callAnswered(Object lane, long nowNanos, long startedNanos, long excessNanos) {
    Line line;
    synchronized (this) {
      governor.answered(lane, nowNanos, startedNanos, excessNanos);
      line = update(nowNanos);
    }
    log(line);
  }

  @Override
  public synchronized boolean lateSince(long sinceNanos, long nowNanos) {
    return governor.lateSince(sinceNanos, nowNanos);
  }

  @Override
  public synchronized boolean stalledSince(long sinceNanos) {
    return governor.stalledSince(sinceNanos);
  }

  /** Closes the windows that ended by now (recovery while nothing fires) and logs a change. */
  public void tick() {
    Line line;
    synchronized (this) {
      line = update(nanoTime.getAsLong());
    }
    log(line);
  }

  /** A line for the log: a WARN when the dispatcher is slowing down, else an INFO. */
  private record Line(boolean warn, String text) {}

  /** Under the monitor: the factor published, and the line to log, if any. */
  private Line update(long nowNanos) {
    double f = governor.factor(nowNanos);
    factor = f;
    PaceGovernor.Band now = governor.band(nowNanos);
    if (band == PaceGovernor.Band.FULL && now != PaceGovernor.Band.FULL) {
      slowedSinceNanos = nowNanos;
      lowest = f;
    }
    lowest = Math.min(lowest, f);
    band = now;
    if (now == logged || (loggedAny && nowNanos - loggedAtNanos < LOG_EVERY_NANOS)) {
      return null;
    }
    PaceGovernor.Band was = logged;
    logged = now;
    loggedAny = true;
    loggedAtNanos = nowNanos;
    String percent = Math.round(f * 100) + "%";
    return switch (now) {
      case FULL -> new Line(false, "dispatcher: back at full pace, on time (slowed for "
          + TimeUnit.NANOSECONDS.toSeconds(nowNanos - slowedSinceNanos) + " s, down to "
          + Math.round(lowest * 100) + "% of the lanes' rates)");
      case SLOWED -> was == PaceGovernor.Band.FLOOR
          ? new Line(false, "dispatcher: above its floor again, every lane at " + percent
              + " of its rate")
          : new Line(true, "dispatcher: overloaded, it runs late (" + governor.lastLateWindow()
              + " in the last late half-second); every lane claims " + percent + " of its rate "
              + "until it is on time");
      case FLOOR -> new Line(true, "dispatcher: overloaded at its floor, every lane at " + percent
          + " of its rate, and it still runs late (" + governor.lastLateWindow() + "): the "
          + "machine gives it too little CPU");
    };
  }

  private static void log(Line line) {
    if (line == null) {
      return;
    }
    if (line.warn()) {
      LOG.warn(line.text());
    } else {
      LOG.info(line.text());
    }
  }
}
