package io.sluice.lab.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How long each provider went without a call after a hostile answer ({@link ProviderPhase#HOSTILE}):
 * for every hostile answer, the time until the provider's next call, and the longest of those. With
 * {@code maxRetryAfter} at M s ({@link ChaosOptions#maxRetryAfterSeconds}) the longest should be
 * about M plus a second of jitter, unless a fault of the run (a SIGKILL, a restart) fell in it.
 * Pure.
 */
final class HostileFigures {
  /**
   * @param answers       hostile answers given
   * @param longestMillis the longest wait from a hostile answer to the next call (-1: no call came
   *                      after the last one)
   */
  record Figure(int answers, long longestMillis) {}

  private HostileFigures() {}

  static Map<String, Figure> of(Map<String, List<Long>> hostileAt,
      List<ArrivalFigures.Arrival> arrivals) {
    Map<String, Figure> out = new TreeMap<>();
    hostileAt.forEach((provider, times) -> {
      List<Long> calls = new ArrayList<>();
      for (ArrivalFigures.Arrival a : arrivals) {
        if (a.provider().equals(provider)) {
          calls.add(a.atMillis());
        }
      }
      calls.sort(Long::compare);
      long longest = 0;
      for (long h : times) {
        long next = calls.stream().filter(t -> t > h).findFirst().orElse(-1L);
        if (next < 0) {
          longest = -1;
          break;
        }
        longest = Math.max(longest, next - h);
      }
      out.put(provider, new Figure(times.size(), longest));
    });
    return out;
  }

  /** One line for the run's output and {@code hostile.txt}. */
  static String describe(Map<String, Figure> figures, int maxRetryAfterSeconds) {
    StringBuilder s = new StringBuilder("hostile answers (Retry-After: 86400, q=0 for a month, "
        + "1 call a day, a reset a day away), maxRetryAfter "
        + maxRetryAfterSeconds + " s:");
    figures.forEach((p, f) -> s.append(' ').append(p).append(' ').append(f.answers())
        .append(" answers, next call at most ")
        .append(f.longestMillis() < 0 ? "never" : f.longestMillis() / 1000.0 + " s").append(" after;"));
    return s.toString();
  }
}
