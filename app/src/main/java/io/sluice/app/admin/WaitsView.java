package io.sluice.app.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.dispatcher.dispatch.Waits;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one provider's events wait for across the live dispatcher instances, as {@code status}
 * shows it: each instance's {@link Waits} summed (counts), the latest hold and last due back, the
 * earliest first due back. Pure.
 */
final class WaitsView {
  private static final ObjectMapper JSON = new ObjectMapper();

  private WaitsView() {}

  /** {@code provider}'s waits over {@code instances}, as JSON. */
  static ObjectNode of(String provider, List<Map<String, Waits>> instances) {
    int queued = 0;
    int inFlight = 0;
    int heldByPause = 0;
    int lanesHeld = 0;
    long heldUntil = 0;
    long nextDue = Long.MAX_VALUE;
    long lastDue = 0;
    Map<String, Integer> parked = new TreeMap<>();
    int reporting = 0;
    int waiting = 0;
    String callsWait = null;
    for (Map<String, Waits> instance : instances) {
      Waits w = instance.get(provider);
      if (w == null) {
        continue;
      }
      reporting++;
      queued += w.queued();
      inFlight += w.inFlight();
      heldByPause += w.heldByPause();
      lanesHeld += w.lanesHeld();
      heldUntil = Math.max(heldUntil, w.heldUntilMillis());
      w.parked().forEach((reason, n) -> parked.merge(reason, n, Integer::sum));
      if (w.nextDueMillis() > 0) {
        nextDue = Math.min(nextDue, w.nextDueMillis());
      }
      lastDue = Math.max(lastDue, w.lastDueMillis());
      if (w.callsWait() != null) {
        waiting++;
        callsWait = callsWait == null ? w.callsWait() : callsWait;
      }
    }
    ObjectNode out = JSON.createObjectNode();
    out.put("instances", reporting);
    out.put("queued", queued);
    out.put("inFlight", inFlight);
    out.put("heldByPause", heldByPause);
    out.put("lanesHeld", lanesHeld);
    if (heldUntil > 0) {
      out.put("heldUntil", Instant.ofEpochMilli(heldUntil).toString());
    }
    if (callsWait != null) {
      // An instance's calls wait whatever the provider: its settlements go unacknowledged.
      out.put("callsWaitOn", waiting);
      out.put("callsWait", callsWait);
    }
    ObjectNode p = out.putObject("parked");
    parked.forEach(p::put);
    if (nextDue != Long.MAX_VALUE) {
      out.put("nextDue", Instant.ofEpochMilli(nextDue).toString());
      out.put("lastDue", Instant.ofEpochMilli(lastDue).toString());
    }
    return out;
  }

  /** One line for a person: what waits, and for what. */
  static String line(JsonNode w) {
    StringBuilder out = new StringBuilder();
    out.append(w.path("queued").asInt()).append(" queued for their slots, ")
        .append(w.path("inFlight").asInt()).append(" in flight");
    if (w.path("heldByPause").asInt() > 0) {
      out.append(", ").append(w.path("heldByPause").asInt()).append(" held by a pause");
    }
    if (w.path("lanesHeld").asInt() > 0) {
      out.append(", ").append(w.path("lanesHeld").asInt())
          .append(" lane(s) held (Retry-After, or an endpoint disabled until its probe) until ")
          .append(w.path("heldUntil").asText());
    }
    w.path("parked").properties().forEach(r -> out.append(", ").append(r.getValue().asInt())
        .append(" parked in Kafka (").append(r.getKey()).append(")"));
    if (w.has("nextDue")) {
      out.append(", back from ").append(w.path("nextDue").asText()).append(" to ")
          .append(w.path("lastDue").asText());
    }
    if (w.has("callsWait")) {
      out.append(", calls wait on ").append(w.path("callsWaitOn").asInt())
          .append(" instance(s): ").append(w.path("callsWait").asText());
    }
    if (w.path("instances").asInt() == 0) {
      return "no dispatcher instance reports (none running, or Redis away)";
    }
    return out.toString();
  }
}
