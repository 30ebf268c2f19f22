package io.sluice.app.simulate;

import io.sluice.schemas.event.Reason;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A simulation's report as a JSON tree (maps and lists, for Jackson): every tenant, not a cut. */
public final class ReportJson {
  private ReportJson() {}

  public static Map<String, Object> of(Simulator.Report report) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("lines", report.lines());
    out.put("bounded", report.bounded());
    out.put("wallMillis", report.wallMillis());
    out.put("eventsPerSecond", Math.round(report.eventsPerSecond()));
    out.put("notModelled", "provider answers (429, 5xx, time-outs, retries), call latency, limits beyond the "
        + "rate, learned limits, quota rules beyond the (provider, tenant) quota, leases, ordering keys, "
        + "pauses, parking, several instances: every call succeeds at its slot");
    List<Object> runs = new ArrayList<>();
    for (Simulator.Run run : report.runs()) {
      Simulation.Outcome o = run.outcome();
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("config", run.label());
      r.put("events", o.events());
      r.put("spanMillis", o.spanMicros() / 1000);
      Map<String, Object> providers = new TreeMap<>();
      o.providers().forEach((name, p) -> providers.put(name, Map.of(
          "calls", p.calls(), "maxCallsPerSecond", p.maxPerSecond(), "limitPerSecond", p.limitPerSecond())));
      r.put("providers", providers);
      r.put("tiers", tallies(o.tiers()));
      r.put("tenants", tallies(o.tenants()));
      r.put("deadWithoutTenant", dead(o.unattributed().dead()));
      runs.add(r);
    }
    out.put("runs", runs);
    return out;
  }

  private static Map<String, Object> tallies(Map<String, Tally> tallies) {
    Map<String, Object> out = new TreeMap<>();
    tallies.forEach((name, t) -> {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("calls", t.calls());
      m.put("latenessMillis", Map.of("p50", t.lateness().quantile(0.5), "p99", t.lateness().quantile(0.99),
          "max", t.lateness().max()));
      m.put("deadlineMisses", t.deadlineMisses());
      m.put("dead", dead(t.dead()));
      out.put(name, m);
    });
    return out;
  }

  private static Map<String, Long> dead(Map<Reason, Long> dead) {
    Map<String, Long> out = new TreeMap<>();
    dead.forEach((reason, n) -> out.put(reason.code(), n));
    return out;
  }
}
