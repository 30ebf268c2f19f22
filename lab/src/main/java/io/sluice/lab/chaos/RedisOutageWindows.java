package io.sluice.lab.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * How long a Redis outage may loosen a policy's bound: from the kill until the gate's circuit can
 * have closed again. The circuit closes on a probe, and a probe is an event being decided; while
 * the broker is away the gate decides nothing, so a broker outage that begins before the circuit's
 * grace has passed keeps the circuit open until the broker is back and the grace has passed again.
 * Without that, a run where the broker went down during Redis's grace judged the backlog the gate
 * decided under {@code fail_open} on the broker's return (circuit still open, as designed) as
 * over-admission. Pure: every instant is the caller's.
 */
final class RedisOutageWindows {
  private RedisOutageWindows() {}

  /**
   * @param redis    Redis outages, {from, back} in epoch millis
   * @param broker   broker outages, {from, back}
   * @param graceMillis after Redis (or the broker) is back, how long a circuit may stay open
   * @return one {from, until} window per Redis outage
   */
  static List<long[]> of(List<long[]> redis, List<long[]> broker, long graceMillis) {
    List<long[]> windows = new ArrayList<>();
    for (long[] r : redis) {
      long until = r[1] + graceMillis;
      boolean moved = true;
      while (moved) { // a broker outage may start in a window another one extended
        moved = false;
        for (long[] b : broker) {
          if (b[0] <= until && b[1] >= r[0] && b[1] + graceMillis > until) {
            until = b[1] + graceMillis;
            moved = true;
          }
        }
      }
      windows.add(new long[] {r[0], until});
    }
    return windows;
  }
}
