package io.sluice.topology.gate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when the test says so; also serves monotonic nanos. */
final class FakeClock extends Clock {
  private long nanos;

  FakeClock(Instant start) {
    this.nanos = start.getEpochSecond() * 1_000_000_000L + start.getNano();
  }

  void advance(Duration d) {
    nanos += d.toNanos();
  }

  long nanos() {
    return nanos;
  }

  long micros() {
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
