package io.sluice.app.simulate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The rows a report shows side by side: every tenant (or tier, or provider) any configuration
 * saw, worst first (the highest p99 lateness under any configuration, then the most dead letters,
 * then by name), so a cut to the first {@code limit} keeps the tenants an operator asks about.
 */
final class Comparison {
  private Comparison() {}

  static List<String> worstFirst(Simulator.Report report,
      Function<Simulation.Outcome, Map<String, Tally>> of, int limit) {
    TreeSet<String> names = new TreeSet<>();
    for (Simulator.Run run : report.runs()) {
      names.addAll(of.apply(run.outcome()).keySet());
    }
    Map<String, long[]> worst = new HashMap<>();
    for (String name : names) {
      long p99 = 0;
      long dead = 0;
      for (Simulator.Run run : report.runs()) {
        Tally t = of.apply(run.outcome()).get(name);
        if (t != null) {
          p99 = Math.max(p99, t.lateness().quantile(0.99));
          dead = Math.max(dead, t.deadTotal());
        }
      }
      worst.put(name, new long[] {p99, dead});
    }
    List<String> rows = new ArrayList<>(names);
    rows.sort(Comparator.<String>comparingLong(n -> -worst.get(n)[0])
        .thenComparingLong(n -> -worst.get(n)[1]).thenComparing(Comparator.naturalOrder()));
    return rows.size() > limit ? rows.subList(0, limit) : rows;
  }

  /** Milliseconds as an operator reads them: "0", "850ms", "12.4s", "3.2m", "1.5h". */
  static String millis(long ms) {
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return String.format("%.1fs", ms / 1000.0);
    }
    if (ms < 3_600_000) {
      return String.format("%.1fm", ms / 60_000.0);
    }
    return String.format("%.1fh", ms / 3_600_000.0);
  }
}
