package io.sluice.app.simulate;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A simulation's report as text: providers, tiers, then the worst tenants, each row with one
 * column group per configuration (the current one first), so a candidate reads against it.
 */
public final class ReportText {
  private ReportText() {}

  public static String of(Simulator.Report report, int topTenants) {
    StringBuilder out = new StringBuilder();
    List<Simulator.Run> runs = report.runs();
    out.append(String.format("%d lines read%s in %d ms (%,d events/s simulated, %d configurations)%n",
        report.lines(), report.bounded() ? " (a bound stopped the read)" : "", report.wallMillis(),
        Math.round(report.eventsPerSecond()), runs.size()));
    out.append("Not modelled: provider answers (429, 5xx, time-outs, retries), call latency, limits beyond "
        + "the rate, quota rules beyond the (provider, tenant) quota, leases, pauses: every call succeeds.\n");

    out.append("\nproviders: calls, most calls in one second / configured rate\n");
    TreeSet<String> providers = new TreeSet<>();
    runs.forEach(r -> providers.addAll(r.outcome().providers().keySet()));
    header(out, "provider", runs);
    for (String p : providers) {
      out.append(String.format("%-24s", Text.shown(p, 24)));
      for (Simulator.Run r : runs) {
        ProviderTally t = r.outcome().providers().get(p);
        out.append(t == null ? String.format(" | %-34s", "-")
            : String.format(" | %-34s", t.calls() + " calls, " + t.maxPerSecond() + "/s of " + t.limitPerSecond() + "/s"));
      }
      out.append('\n');
    }
    section(out, "tiers", "tier", report, Simulation.Outcome::tiers, Integer.MAX_VALUE);
    section(out, "tenants, worst first (at most " + topTenants + ")", "tenant", report,
        Simulation.Outcome::tenants, topTenants);
    for (Simulator.Run r : runs) {
      if (r.outcome().unattributed().deadTotal() > 0) {
        out.append(String.format("%s: %s dead letters without a readable tenant%n", Text.shown(r.label(), 40),
            r.outcome().unattributed().dead()));
      }
    }
    return out.toString();
  }

  private static void section(StringBuilder out, String title, String what, Simulator.Report report,
      Function<Simulation.Outcome, Map<String, Tally>> of, int limit) {
    out.append("\n").append(title).append(": calls, lateness p50/p99/max, deadline misses, dead letters\n");
    header(out, what, report.runs());
    for (String name : Comparison.worstFirst(report, of, limit)) {
      out.append(String.format("%-24s", Text.shown(name, 24)));
      for (Simulator.Run r : report.runs()) {
        Tally t = of.apply(r.outcome()).get(name);
        out.append(String.format(" | %-34s", t == null ? "-" : row(t)));
      }
      out.append('\n');
    }
  }

  private static String row(Tally t) {
    return t.calls() + " " + Comparison.millis(t.lateness().quantile(0.5)) + "/"
        + Comparison.millis(t.lateness().quantile(0.99)) + "/" + Comparison.millis(t.lateness().max())
        + " " + t.deadlineMisses() + " " + t.deadTotal();
  }

  private static void header(StringBuilder out, String what, List<Simulator.Run> runs) {
    out.append(String.format("%-24s", what));
    for (Simulator.Run r : runs) {
      out.append(String.format(" | %-34s", Text.shown(r.label(), 34)));
    }
    out.append('\n');
  }
}
