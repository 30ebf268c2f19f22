package io.sluice.app.simulate;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A simulation's report as one self-contained HTML page: the tables of the text report, and an
 * inline SVG plot of the worst tenants' p99 lateness, one bar per configuration. No script, no
 * style sheet or font from elsewhere; every name on it went through {@link Text#html}, because
 * tenant ids and labels come from files an operator did not write.
 */
public final class ReportHtml {
  private static final String[] COLOURS = {"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"};
  private static final int PLOTTED = 20;

  private ReportHtml() {}

  public static String of(Simulator.Report report, int topTenants) {
    List<Simulator.Run> runs = report.runs();
    StringBuilder h = new StringBuilder(8192);
    h.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>sluice simulate</title>\n")
        .append("<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}")
        .append("td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}</style>")
        .append("</head><body>\n<h1>sluice simulate</h1>\n<p>")
        .append(report.lines()).append(" lines read").append(report.bounded() ? " (a bound stopped the read)" : "")
        .append(" in ").append(report.wallMillis()).append(" ms. Configurations: ");
    for (int i = 0; i < runs.size(); i++) {
      h.append(i == 0 ? "" : ", ").append("<span style=\"color:").append(colour(i)).append("\">")
          .append(Text.html(runs.get(i).label())).append("</span>");
    }
    h.append(".</p>\n<p>Not modelled: provider answers (429, 5xx, time-outs, retries), call latency, limits "
        + "beyond the rate, quota rules beyond the (provider, tenant) quota, leases, pauses: every call "
        + "succeeds at its slot.</p>\n");
    plot(h, report);
    h.append("<h2>Providers</h2>\n<table><tr><th>provider</th>");
    runs.forEach(r -> h.append("<th>").append(Text.html(r.label())).append(": calls, most/s, rate</th>"));
    h.append("</tr>\n");
    TreeSet<String> providers = new TreeSet<>();
    runs.forEach(r -> providers.addAll(r.outcome().providers().keySet()));
    for (String p : providers) {
      h.append("<tr><td>").append(Text.html(p)).append("</td>");
      for (Simulator.Run r : runs) {
        ProviderTally t = r.outcome().providers().get(p);
        h.append("<td>").append(t == null ? "-" : t.calls() + ", " + t.maxPerSecond() + "/s, " + t.limitPerSecond() + "/s")
            .append("</td>");
      }
      h.append("</tr>\n");
    }
    h.append("</table>\n");
    table(h, "Tiers", "tier", report, Simulation.Outcome::tiers, Integer.MAX_VALUE);
    table(h, "Tenants, worst first (at most " + topTenants + ")", "tenant", report, Simulation.Outcome::tenants,
        topTenants);
    return h.append("</body></html>\n").toString();
  }

  private static void table(StringBuilder h, String title, String what, Simulator.Report report,
      Function<Simulation.Outcome, Map<String, Tally>> of, int limit) {
    h.append("<h2>").append(Text.html(title)).append("</h2>\n<table><tr><th>").append(what).append("</th>");
    report.runs().forEach(r -> h.append("<th>").append(Text.html(r.label()))
        .append(": calls, lateness p50 / p99 / max, deadline misses, dead letters</th>"));
    h.append("</tr>\n");
    for (String name : Comparison.worstFirst(report, of, limit)) {
      h.append("<tr><td>").append(Text.html(name)).append("</td>");
      for (Simulator.Run r : report.runs()) {
        Tally t = of.apply(r.outcome()).get(name);
        h.append("<td>");
        if (t == null) {
          h.append('-');
        } else {
          h.append(t.calls()).append(", ").append(Comparison.millis(t.lateness().quantile(0.5))).append(" / ")
              .append(Comparison.millis(t.lateness().quantile(0.99))).append(" / ")
              .append(Comparison.millis(t.lateness().max())).append(", ").append(t.deadlineMisses()).append(", ")
              .append(Text.html(t.dead().toString()));
        }
        h.append("</td>");
      }
      h.append("</tr>\n");
    }
    h.append("</table>\n");
  }

  /** Horizontal bars: p99 lateness of the worst tenants, one bar per configuration. */
  private static void plot(StringBuilder h, Simulator.Report report) {
    List<String> tenants = Comparison.worstFirst(report, Simulation.Outcome::tenants, PLOTTED);
    List<Simulator.Run> runs = report.runs();
    long top = 1;
    for (String t : tenants) {
      for (Simulator.Run r : runs) {
        Tally tally = r.outcome().tenants().get(t);
        top = Math.max(top, tally == null ? 0 : tally.lateness().quantile(0.99));
      }
    }
    int bar = 12;
    int group = bar * runs.size() + 8;
    int left = 220;
    int width = 520;
    int height = Math.max(1, tenants.size()) * group + 40;
    h.append("<h2>p99 lateness of the worst tenants</h2>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
        .append(left + width + 80).append("\" height=\"").append(height).append("\" role=\"img\">\n");
    for (int i = 0; i < tenants.size(); i++) {
      int y = 10 + i * group;
      h.append("<text x=\"").append(left - 6).append("\" y=\"").append(y + bar).append("\" text-anchor=\"end\" ")
          .append("font-size=\"11\">").append(Text.html(Text.shown(tenants.get(i), 32))).append("</text>\n");
      for (int j = 0; j < runs.size(); j++) {
        Tally tally = runs.get(j).outcome().tenants().get(tenants.get(i));
        long p99 = tally == null ? 0 : tally.lateness().quantile(0.99);
        long w = Math.max(1, p99 * width / top);
        h.append("<rect x=\"").append(left).append("\" y=\"").append(y + j * bar).append("\" width=\"").append(w)
            .append("\" height=\"").append(bar - 2).append("\" fill=\"").append(colour(j)).append("\"><title>")
            .append(Text.html(runs.get(j).label())).append(": ").append(Comparison.millis(p99))
            .append("</title></rect>\n");
        h.append("<text x=\"").append(left + w + 4).append("\" y=\"").append(y + j * bar + bar - 3)
            .append("\" font-size=\"10\">").append(Comparison.millis(p99)).append("</text>\n");
      }
    }
    h.append("<line x1=\"").append(left).append("\" y1=\"0\" x2=\"").append(left).append("\" y2=\"")
        .append(height - 30).append("\" stroke=\"#333\"/>\n");
    h.append("<text x=\"").append(left).append("\" y=\"").append(height - 10).append("\" font-size=\"11\">0 to ")
        .append(Comparison.millis(top)).append(" (p99 lateness: call time minus arrival)</text>\n</svg>\n");
  }

  private static String colour(int i) {
    return COLOURS[i % COLOURS.length];
  }
}
