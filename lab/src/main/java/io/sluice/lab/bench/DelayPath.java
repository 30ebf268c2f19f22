package io.sluice.lab.bench;

import io.sluice.schemas.topic.DelayLadder;
import java.time.Duration;

/**
 * The path of one record through the delay ladder, worked out from the ladder's own rules
 * ({@link DelayLadder#stepFor}, {@link DelayLadder#releaseAt}) with no time lost between steps:
 * how many step topics a record waiting {@code waitMillis} passes through. Pure.
 */
final class DelayPath {
  private DelayPath() {}

  /** Step topics the record is placed in: 1 means it waits in one and never hops. */
  static int placements(DelayLadder ladder, long waitMillis) {
    long notBefore = waitMillis;
    long placedAt = 0;
    int placements = 0;
    while (true) {
      Duration step = ladder.stepFor(notBefore - placedAt);
      placements++;
      long released = ladder.releaseAt(placedAt, notBefore, step);
      if (released >= notBefore) {
        return placements;
      }
      placedAt = released;
    }
  }
}
