package io.sluice.gate;

import io.sluice.testkit.FakeClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** {@link SeenIds} in a map, expiring on a fake clock: {@code dedup.lua}'s rule without Redis. */
final class InMemorySeenIds implements SeenIds {
  private record Stored(String mark, long expiresAtMillis) {}

  private final FakeClock clock;
  private final Map<String, Stored> marks = new HashMap<>();

  InMemorySeenIds(FakeClock clock) {
    this.clock = clock;
  }

  @Override
  public synchronized String firstMark(String key, String mark, Duration window) {
    Stored stored = marks.get(key);
    if (stored != null && stored.expiresAtMillis > clock.millis()) {
      return stored.mark;
    }
    marks.put(key, new Stored(mark, clock.millis() + window.toMillis()));
    return mark;
  }
}
