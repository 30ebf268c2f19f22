package io.sluice.lab.chaos;

import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * The gate's own Redis outages, read from its log: from "Redis failed" (its circuit opened, each
 * provider's {@code onRedisDown} policy decides) to "Redis answers again" (closed). Redis need not
 * be down for that: on a loaded machine a script call times out with Redis up (chaos seed 1702, load
 * average 20: the circuit open 285 ms and 272 ms), and the gate then decides by policy exactly as in
 * an outage, {@code fail_open} admitting without a bucket, as documented. The over-admission
 * verdict judges such windows by the policy's bound, as it does the outages the run makes.
 *
 * <p>A circuit still open when its process ends (a SIGKILL) closes with it: the window ends at the
 * log's next line written by another process (a start announces Redis's clock) or at the log's end.
 * Pure: the lines and the zone of their timestamps are the caller's.
 */
final class CircuitOutages {
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
  static final String OPENED = "RedisCircuit: gate: Redis failed";
  static final String CLOSED = "RedisCircuit: gate: Redis answers again";
  /** The first line a starting gate writes about Redis: a new process, any open circuit gone. */
  static final String STARTED = "RedisTimeClock: ";

  private CircuitOutages() {}

  /** {from, until} epoch millis, one per opening of the gate's circuit. */
  static List<long[]> of(List<String> lines, ZoneId zone) {
    List<long[]> windows = new ArrayList<>();
    long openedAt = -1;
    long last = -1;
    for (String line : lines) {
      long at = millis(line, zone);
      if (at < 0) {
        continue;
      }
      last = at;
      if (line.contains(OPENED)) {
        if (openedAt < 0) {
          openedAt = at;
        }
      } else if (openedAt >= 0 && (line.contains(CLOSED) || line.contains(STARTED))) {
        windows.add(new long[] {openedAt, at});
        openedAt = -1;
      }
    }
    if (openedAt >= 0) {
      windows.add(new long[] {openedAt, last});
    }
    return windows;
  }

  /** A log line's timestamp (its first 23 characters), or -1 for a line without one. */
  private static long millis(String line, ZoneId zone) {
    if (line.length() < 23 || !Character.isDigit(line.charAt(0))) {
      return -1;
    }
    try {
      return LocalDateTime.parse(line.substring(0, 23), STAMP).atZone(zone).toInstant().toEpochMilli();
    } catch (DateTimeParseException e) {
      return -1;
    }
  }
}
