package io.sluice.app.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import java.util.Map;

/** {@link StatusReader}'s JSON as lines for a person at a terminal ({@code sluice status}). */
public final class StatusText {
  private StatusText() {}

  public static String render(JsonNode status) {
    StringBuilder out = new StringBuilder("status at ").append(status.path("at").asText())
        .append('\n');
    out.append("providers:\n");
    for (Map.Entry<String, JsonNode> p : status.path("providers").properties()) {
      JsonNode n = p.getValue();
      out.append(String.format(Locale.ROOT, "  %s: %.2f/s configured, paced at %.2f/s%s%n",
          p.getKey(), n.path("configuredRate").asDouble(), n.path("pacedRate").asDouble(),
          n.path("paused").asBoolean() ? ", PAUSED" : ""));
      for (JsonNode l : n.path("learnedLimits")) {
        out.append(String.format(Locale.ROOT, "    learned: %d %s per %d ms (%s) until %s%n",
            l.path("quota").asLong(), l.path("unit").asText(), l.path("windowMillis").asLong(),
            l.path("name").asText(), l.path("expiresAt").asText()));
      }
      for (JsonNode x : n.path("pauses")) {
        out.append("    pause: ").append(pause(x)).append('\n');
      }
      if (n.has("waits")) {
        out.append("    waiting: ").append(WaitsView.line(n.path("waits"))).append('\n');
      }
    }
    if (status.has("redisLoss")) {
      JsonNode l = status.path("redisLoss");
      out.append("redis lost its data at ").append(l.path("lostAt").asText()).append(" (")
          .append(l.path("slotsLost").asInt()).append(" of ").append(l.path("slotsSampled").asInt())
          .append(" slots read): every tenant's bucket starts spent, with a full reach of reservations, "
              + "so new admissions wait until about ").append(l.path("admissionsFrom").asText())
          .append(", buckets full by ").append(l.path("refilledBy").asText())
          .append(" (docs/guarantees.md, \"Redis wiped\")\n");
    }
    if (status.has("waiting")) {
      // Past each group's commit: a commit stops at the oldest unsettled record, so records settled
      // after it count too (a dispatcher's own waits, per provider above, are what truly waits).
      out.append("behind each group's commit (consumer lag; for ready, settled records past a waiting one count too):\n");
      for (Map.Entry<String, JsonNode> s : status.path("waiting").path("byStage").properties()) {
        out.append("  ").append(s.getKey()).append(": ").append(s.getValue().asLong()).append('\n');
      }
    }
    if (status.has("deadLettersLastHour")) {
      JsonNode d = status.path("deadLettersLastHour");
      out.append("dead letters in the last hour")
          .append(d.path("truncated").asBoolean() ? " (counted in part)" : "").append(":");
      if (d.path("byReason").isEmpty()) {
        out.append(" none");
      }
      out.append('\n');
      for (Map.Entry<String, JsonNode> r : d.path("byReason").properties()) {
        out.append("  ").append(r.getKey()).append(": ").append(r.getValue().asLong()).append('\n');
      }
    }
    if (status.has("tenant")) {
      JsonNode t = status.path("tenant");
      out.append("tenant ").append(t.path("name").asText()).append(": tier ")
          .append(t.path("tier").isNull() ? "none (unknown tenant)" : t.path("tier").asText())
          .append(t.path("listed").asBoolean() ? "" : " (not listed: the default tier)")
          .append("registry".equals(t.path("source").asText()) ? " (from the tenant registry)" : "")
          .append('\n');
      for (Map.Entry<String, JsonNode> b : t.path("buckets").properties()) {
        JsonNode v = b.getValue();
        out.append(String.format(Locale.ROOT, "  bucket toward %s: %.1f of %.0f (refill %.2f/s)%n",
            b.getKey(), v.path("level").asDouble(), v.path("capacity").asDouble(),
            v.path("refillPerSecond").asDouble()));
      }
      for (Map.Entry<String, JsonNode> w : t.path("waiting").properties()) {
        out.append("  waiting toward ").append(w.getKey()).append(": ")
            .append(TenantWait.line(w.getValue())).append('\n');
      }
    }
    if (status.has("instance")) {
      out.append("this instance: ").append(status.path("instance")).append('\n');
    }
    for (Map.Entry<String, JsonNode> e : status.path("errors").properties()) {
      out.append("could not read ").append(e.getKey()).append(": ").append(e.getValue().asText())
          .append('\n');
    }
    out.append("not shown here: events buffered and calls in flight per instance, its Redis "
        + "circuit (GET /admin/status or /health on each instance)\n");
    return out.toString();
  }

  private static String pause(JsonNode p) {
    String scope = p.path("provider").isNull() ? "tenant " + p.path("tenant").asText()
        : p.path("tenant").isNull() ? "provider " + p.path("provider").asText()
        : "provider " + p.path("provider").asText() + ", tenant " + p.path("tenant").asText();
    String reason = p.path("reason").asText();
    return scope + " by " + p.path("by").asText() + " at " + p.path("at").asText()
        + (reason.isEmpty() ? "" : " (" + reason + ")");
  }
}
