package io.sluice.dispatcher.ops;

import com.codahale.metrics.Clock;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Timer;

/**
 * A Dropwizard timer that keeps the exact total time recorded, exposed by {@link PrometheusText}
 * as the summary's {@code _sum} in seconds. Register it with
 * {@code registry.timer(name, SummingTimer::new)}.
 *
 * <p>How: every way of recording into a {@link Timer} ({@code update}, {@code time(..)},
 * {@code Context.stop()}) ends in its histogram's {@code update(long nanos)}, so handing the timer
 * a {@link SummingHistogram} sees every duration exactly once without overriding the timer's own
 * methods.
 */
public final class SummingTimer extends Timer {
  private final SummingHistogram durations;

  public SummingTimer() {
    this(new SummingHistogram(), Clock.defaultClock());
  }

  public SummingTimer(Clock clock) {
    this(new SummingHistogram(), clock);
  }

  private SummingTimer(SummingHistogram durations, Clock clock) {
    super(new Meter(clock), durations, clock);
    this.durations = durations;
  }

  /** Total time recorded, in nanoseconds. */
  public long sumNanos() {
    return durations.sum();
  }
}
