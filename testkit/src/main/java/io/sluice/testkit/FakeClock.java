package io.sluice.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that moves only when the test says so; also serves monotonic nanos. Volatile, because
 * some code under test reads it from a thread of its own (the relay's Redis TIME sampler).
 */
public final class FakeClock extends Clock {
  private volatile long nanos;

  public FakeClock(Instant start) {
    this.nanos = start.getEpochSecond() * 1_000_000_000L + start.getNano();
  }

  /** A clock reading {@code epochMillis}. */
  public static FakeClock atMillis(long epochMillis) {
    return new FakeClock(Instant.ofEpochMilli(epochMillis));
  }

  public void advance(Duration d) {
    nanos += d.toNanos();
  }

  public void advanceMillis(long millis) {
    nanos += millis * 1_000_000;
  }

  /** Sets the clock to {@code epochMillis}, forwards or back. */
  public void setMillis(long epochMillis) {
    nanos = epochMillis * 1_000_000;
  }

  public long nanos() {
    return nanos;
  }

  public long micros() {
    return nanos / 1000;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochSecond(0, nanos);
  }

  @Override
  public long millis() {
    return nanos / 1_000_000;
  }
}
