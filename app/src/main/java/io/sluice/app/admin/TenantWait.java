package io.sluice.app.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.dispatcher.dispatch.Waits;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How long a tenant's events wait toward one provider, and when its backlog is expected through,
 * as {@code status --tenant} shows it. Pure: the instances' {@link Waits}, the tenant's quota due
 * time and now in, JSON out.
 *
 * <ul>
 *   <li>{@code oldestQueuedSince}, {@code oldestQueuedAgeMillis}: the first sight of its oldest
 *       event queued in a dispatcher (waiting for the provider's pace), the oldest over the
 *       instances that list it. {@code oldestKnown} is false when an instance has more tenants
 *       waiting than it lists ({@link io.sluice.dispatcher.dispatch.Backlogs#MAX_TENANTS}) and
 *       this one is not among them: its oldest there is then younger than the youngest listed.
 *       Events deferred by its quota wait in Kafka and are not counted here; the quota's due time
 *       says when they pass.</li>
 *   <li>{@code tierDrainMillis}: in how long its tier's events queued at the provider are all
 *       served (the slowest instance's), which its own queued events are among.</li>
 *   <li>{@code quotaDueAt}: when an event sent now would be due by its quota, so when those
 *       already deferred are through the gate.</li>
 *   <li>{@code etaAt}, {@code etaMillis}: the later of the two, the expected end of its backlog at
 *       the provider if nothing more arrives.</li>
 * </ul>
 */
final class TenantWait {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TenantWait() {}

  /**
   * @param tier           the tenant's tier, whose backlog its queued events share
   * @param quotaDueMillis when an event sent now is due by its quota (epoch ms), or null when it
   *                       has no quota toward the provider or it could not be read
   */
  static ObjectNode of(String tenant, String tier, String provider,
      List<Map<String, Waits>> instances, Long quotaDueMillis, long nowMillis) {
    long oldest = 0;
    boolean known = true;
    long drain = 0;
    boolean drainKnown = true;
    for (Map<String, Waits> instance : instances) {
      Waits w = instance.get(provider);
      if (w == null) {
        continue;
      }
      Long at = w.oldestByTenant().get(tenant);
      if (at != null) {
        oldest = oldest == 0 ? at : Math.min(oldest, at);
      } else if (w.tenantsWaiting() > w.oldestByTenant().size()) {
        known = false;
      }
      Waits.TierWait t = tier == null ? null : w.tiers().get(tier);
      if (t != null) {
        drainKnown &= t.drainMillis() >= 0;
        drain = Math.max(drain, t.drainMillis());
      }
    }
    ObjectNode out = JSON.createObjectNode();
    if (oldest > 0) {
      out.put("oldestQueuedSince", Instant.ofEpochMilli(oldest).toString());
      out.put("oldestQueuedAgeMillis", Math.max(0, nowMillis - oldest));
    }
    out.put("oldestKnown", known);
    if (drainKnown) {
      out.put("tierDrainMillis", drain);
    }
    if (quotaDueMillis != null) {
      out.put("quotaDueAt", Instant.ofEpochMilli(quotaDueMillis).toString());
    }
    if (drainKnown) {
      long eta = Math.max(nowMillis + drain, quotaDueMillis == null ? 0 : quotaDueMillis);
      out.put("etaAt", Instant.ofEpochMilli(eta).toString());
      out.put("etaMillis", eta - nowMillis);
    }
    return out;
  }

  /** One line for a person: the oldest queued, when its backlog is through, and why. */
  static String line(JsonNode w) {
    StringBuilder out = new StringBuilder();
    if (w.has("oldestQueuedSince")) {
      out.append("oldest queued ").append(seconds(w.path("oldestQueuedAgeMillis").asLong()))
          .append(" (first seen ").append(w.path("oldestQueuedSince").asText()).append(")");
    } else {
      out.append(w.path("oldestKnown").asBoolean(true) ? "nothing queued in a dispatcher"
          : "its oldest queued not known (not among the tenants waiting longest an instance tells)");
    }
    if (w.has("etaAt")) {
      out.append("; backlog through by ").append(w.path("etaAt").asText()).append(" (in ")
          .append(seconds(w.path("etaMillis").asLong())).append(": its tier's queue ")
          .append(seconds(w.path("tierDrainMillis").asLong()));
      if (w.has("quotaDueAt")) {
        out.append(", its quota due at ").append(w.path("quotaDueAt").asText());
      }
      out.append(")");
    } else if (w.has("quotaDueAt")) {
      out.append("; its quota due at ").append(w.path("quotaDueAt").asText())
          .append(" (its tier's queue: no estimate, a lane cannot call now)");
    }
    return out.toString();
  }

  private static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
