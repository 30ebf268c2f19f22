package io.sluice.lab.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.schemas.serde.Json;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The demo report as text (the terminal), JSON ({@code --report-json}) and HTML with plots. */
final class ReportWriter {
  static final List<String> TIERS = List.of("enterprise", "pro", "free");
  private static final Map<String, String> COLOURS = Map.of(
      "enterprise", "#1f5fbf", "pro", "#2a9d5b", "free", "#d98c1f", "all tiers", "#555555",
      "provider 429s", "#c0392b", "backlog", "#7b4fbf", "dispatcher buffer", "#999999");

  private ReportWriter() {}

  static String json(DemoReport report) {
    try {
      return Json.mapper().writer(SerializationFeature.INDENT_OUTPUT)
          .writeValueAsString(report) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String text(DemoReport r) {
    StringBuilder s = new StringBuilder();
    s.append("\n=== Sluice demo report ===\n");
    s.append(String.format(Locale.ROOT, "load: %.0f s; everything settled after %.1f s%n",
        r.durationSeconds(), r.elapsedSeconds()));
    s.append(String.format(Locale.ROOT,
        "events: produced %d, delivered %d, dead-lettered %d, lost %d%n",
        r.produced(), r.delivered(), r.deadLettered(), r.lost()));
    s.append(String.format(Locale.ROOT,
        "leak: configured %.1f/s, achieved %.2f/s while backlogged (%.1f s; %+.2f%%); "
            + "max calls in any 1 s window %d%n",
        r.configuredLeakRate(), r.achievedLeakRate(), r.saturatedSeconds(),
        100 * r.leakError(), r.maxCallsInAnySecond()));
    s.append("provider 429s: ").append(r.provider429()).append('\n');
    long calls = r.callsByTier().values().stream().mapToLong(Long::longValue).sum();
    double weights = r.tierWeights().values().stream().mapToDouble(Double::doubleValue).sum();
    s.append("calls by tier (share of calls / share of weights):\n");
    for (String tier : TIERS) {
      long c = r.callsByTier().getOrDefault(tier, 0L);
      s.append(String.format(Locale.ROOT, "  %-10s %6d calls  %5.1f%% / %5.1f%%  delivered %d%n",
          tier, c, calls == 0 ? 0 : 100.0 * c / calls,
          100 * r.tierWeights().getOrDefault(tier, 0.0) / weights,
          r.deliveredByTier().getOrDefault(tier, 0L)));
    }
    s.append("  (the shares follow the weights only while every tier has a backlog; "
        + "see the plot)\n");
    s.append("dead letters by reason: ").append(r.deadLettersByReason()).append('\n');
    s.append("gate admitted ").append(r.gateAdmitted()).append(", deferred through the ladder ")
        .append(r.deferred()).append('\n');
    if (!r.lostIds().isEmpty()) {
      s.append("LOST: ").append(r.lostIds()).append('\n');
    }
    return s.toString();
  }

  static String html(DemoReport r) {
    int n = r.timeline().size();
    Map<String, double[]> calls = new LinkedHashMap<>();
    double[] all = new double[n];
    for (String tier : TIERS) {
      double[] v = new double[n];
      for (int i = 0; i < n; i++) {
        v[i] = r.timeline().get(i).callsByTier().getOrDefault(tier, 0L);
        all[i] += v[i];
      }
      calls.put(tier, v);
    }
    calls.put("all tiers", all);
    double[] tooMany = new double[n];
    double[] backlog = new double[n];
    double[] buffered = new double[n];
    for (int i = 0; i < n; i++) {
      tooMany[i] = r.timeline().get(i).provider429();
      backlog[i] = r.timeline().get(i).backlog();
      buffered[i] = r.timeline().get(i).buffered();
    }
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<title>Sluice demo report</title><style>"
        + "body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:900px}"
        + "table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;"
        + "padding:4px 10px;text-align:right}th{background:#f3f3f3}td:first-child,"
        + "th:first-child{text-align:left}.chart{display:block;margin:18px 0;border:1px solid "
        + "#eee}.title{font-weight:600;font-size:14px}.tick,.legend{font-size:11px;fill:#444}"
        + ".axis{stroke:#444}.grid{stroke:#eee}.reference{stroke:#c0392b;stroke-dasharray:6 4;"
        + "stroke-width:1.5}.ok{color:#2a9d5b}.bad{color:#c0392b}</style></head><body>\n");
    h.append("<h1>Sluice demo report</h1>\n");
    h.append(String.format(Locale.ROOT, "<p class=\"%s\" id=\"verdict\">%d produced, %d "
            + "delivered, %d dead-lettered, <b>%d lost</b>.</p>%n",
        r.lost() == 0 ? "ok" : "bad", r.produced(), r.delivered(), r.deadLettered(), r.lost()));
    h.append(String.format(Locale.ROOT, "<p>Leak: configured %.1f calls/s, achieved %.2f/s while "
            + "the dispatcher had a backlog (%.1f s, %+.2f%%); at most %d calls in any second; "
            + "provider 429s: %d.</p>%n", r.configuredLeakRate(), r.achievedLeakRate(),
        r.saturatedSeconds(), 100 * r.leakError(), r.maxCallsInAnySecond(), r.provider429()));
    h.append("<table id=\"tiers\"><tr><th>tier</th><th>weight</th><th>calls</th>"
        + "<th>delivered</th></tr>\n");
    for (String tier : TIERS) {
      h.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%.0f</td><td>%d</td><td>%d</td>"
              + "</tr>%n", tier, r.tierWeights().getOrDefault(tier, 0.0),
          r.callsByTier().getOrDefault(tier, 0L), r.deliveredByTier().getOrDefault(tier, 0L)));
    }
    h.append("</table>\n<table id=\"dead\"><tr><th>dead-letter reason</th><th>events</th>"
        + "</tr>\n");
    r.deadLettersByReason().forEach((reason, count) -> h.append(
        "<tr><td>" + SvgChart.escape(reason) + "</td><td>" + count + "</td></tr>\n"));
    h.append("</table>\n");
    h.append(SvgChart.lines("calls-per-tier", "Provider calls per second, by tier",
        "calls/s", calls, COLOURS, r.configuredLeakRate(), "leak rate"));
    h.append(SvgChart.lines("provider-429", "Provider 429s per second", "429s/s",
        Map.of("provider 429s", tooMany), COLOURS, null, null));
    Map<String, double[]> queues = new LinkedHashMap<>();
    queues.put("backlog", backlog);
    queues.put("dispatcher buffer", buffered);
    h.append(SvgChart.lines("backlog", "Backlog: events produced and not yet settled",
        "events", queues, COLOURS, null, null));
    h.append("<p>Backlog counts every event waiting anywhere: in the ladder (deferred by the "
        + "gate or the dispatcher), in the dispatcher's buffer, or in a call.</p>\n");
    h.append("</body></html>\n");
    return h.toString();
  }
}
