package io.sluice.app.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.sluice.config.Durations;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import io.sluice.redis.tenants.EndpointSecrets;
import io.sluice.redis.tenants.StoredTenant;
import io.sluice.redis.tenants.TenantChange;
import io.sluice.redis.tenants.TenantCodec;
import io.sluice.redis.tenants.TenantInput;
import io.sluice.redis.tenants.TenantRecord;
import io.sluice.redis.tenants.TenantRegistry;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tenant registry in the admin API ({@link AdminApi} hands it every path under
 * {@code /admin/tenants}):
 * <ul>
 *   <li>{@code GET /admin/tenants?prefix=P&limit=N}: {@code {"tenants":[tenant...],
 *       "truncated":bool}}, the registry's records and the file's entries whose ids start with
 *       {@code P}, sorted by id, at most {@code N} (default {@value #DEFAULT_LIMIT}, at most
 *       {@value TenantRegistry#MAX_LIST});</li>
 *   <li>{@code GET /admin/tenants/{id}}: the tenant ({@link #view}); 404 when neither the registry
 *       nor the file has it and there is no default tier;</li>
 *   <li>{@code PUT /admin/tenants/{id}} with {@code {"tier":..., "quotas":{P:{"capacity":N,
 *       "refill":"20/s"}}, "shadow":bool, "endpoints":{P:{"url":..., "rate":"5/s"}}}} (the whole
 *       record, {@link TenantInput#fromJson}): writes it and answers the tenant; 400 naming the bad
 *       field;</li>
 *   <li>{@code DELETE /admin/tenants/{id}}: removes the record, {@code {"deleted":true}}; the file
 *       and the default tier decide again; 404 when there was none;</li>
 *   <li>{@code GET /admin/tenants/{id}/audit}: {@code {"changes":[{"at","by","before","after"}]}},
 *       newest first.</li>
 * </ul>
 * Reads need the read or the write token, writes the write token; a change is made
 * {@code by "admin-api@<client address>"}.
 */
public final class TenantRoutes {
  static final String PREFIX = "/admin/tenants";
  static final int DEFAULT_LIMIT = 100;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<SluiceConfig> config;
  private final TenantRegistry registry;

  public TenantRoutes(Supplier<SluiceConfig> config, TenantRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  /** Whether {@code path} is one of these routes'. */
  static boolean serves(String path) {
    return path.equals(PREFIX) || path.startsWith(PREFIX + "/");
  }

  void serve(HttpExchange exchange, String path, String method, boolean write) throws IOException {
    SluiceConfig c = config.get();
    if (path.equals(PREFIX) || path.equals(PREFIX + "/")) {
      if (!method.equals("GET")) {
        AdminApi.notAllowed(exchange, "GET");
        return;
      }
      Map<String, String> query = AdminApi.query(exchange.getRequestURI().getRawQuery());
      AdminApi.respond(exchange, 200, list(c, TenantInput.checkPrefix(query.get("prefix")),
          limit(query.get("limit"))));
      return;
    }
    String rest = path.substring(PREFIX.length() + 1);
    Matcher secret = SECRET.matcher(rest);
    if (secret.matches()) {
      serveSecret(exchange, c, TenantInput.checkId(secret.group(1)), secret.group(2), method, write);
      return;
    }
    boolean audit = rest.endsWith("/audit");
    String id = TenantInput.checkId(audit ? rest.substring(0, rest.length() - "/audit".length()) : rest);
    if (audit) {
      if (!method.equals("GET")) {
        AdminApi.notAllowed(exchange, "GET");
        return;
      }
      AdminApi.respond(exchange, 200, changes(AdminApi.await(registry.audit(id))));
      return;
    }
    String by = "admin-api@" + exchange.getRemoteAddress().getAddress().getHostAddress();
    switch (method) {
      case "GET" -> {
        Optional<StoredTenant> stored = AdminApi.await(registry.get(id)).tenant();
        ObjectNode view = view(c, id, stored);
        if (view == null) {
          AdminApi.respond(exchange, 404, AdminApi.error("tenant \"" + id + "\" is neither in the"
              + " registry nor in the file, and there is no defaultTier"));
        } else {
          AdminApi.respond(exchange, 200, view);
        }
      }
      case "PUT", "DELETE" -> {
        if (!write) {
          AdminApi.respond(exchange, 403, AdminApi.error("changing tenants needs admin.writeToken"));
          return;
        }
        if (method.equals("PUT")) {
          TenantRecord given = TenantInput.fromJson(c, AdminApi.body(exchange));
          // A PUT is the whole record, but never carries the endpoints' secrets back: those it
          // keeps are carried over, and a new endpoint gets one (shown once, in this answer).
          TenantRecord current = AdminApi.await(registry.get(id)).tenant()
              .map(StoredTenant::record).orElse(null);
          EndpointSecrets.Settled settled = EndpointSecrets.settle(c, current, given,
              EndpointSecrets::fresh);
          StoredTenant stored = AdminApi.await(registry.put(id, settled.record(), by));
          ObjectNode answer = view(c, id, Optional.of(stored));
          if (!settled.made().isEmpty()) {
            ObjectNode made = answer.putObject("newSecrets");
            settled.made().forEach(made::put);
          }
          AdminApi.respond(exchange, 200, answer);
        } else if (AdminApi.await(registry.delete(id, by))) {
          AdminApi.respond(exchange, 200, JSON.createObjectNode().put("deleted", true));
        } else {
          AdminApi.respond(exchange, 404, AdminApi.error("tenant \"" + id + "\" has no registry"
              + " record").put("deleted", false));
        }
      }
      default -> AdminApi.notAllowed(exchange, "GET, PUT, DELETE");
    }
  }

  /** {@code {id}/endpoints/{provider}/secret}. */
  private static final Pattern SECRET =
      Pattern.compile("([^/]+)/endpoints/([A-Za-z0-9._-]{1,64})/secret");

  /**
   * An endpoint's signing secret, for the write token only (a read token, {@code status} and
   * {@code /health} never see it): {@code GET} answers the secrets signing now
   * ({@code {"secrets":["whsec_..."]}}, the current first); {@code POST} with
   * {@code {"overlap":"24h","secret":"whsec_..."}} (both optional) rotates it: the new secret
   * signs at once, the old one beside it until the overlap ends.
   */
  private void serveSecret(HttpExchange exchange, SluiceConfig c, String id, String provider,
      String method, boolean write) throws IOException {
    if (!write) {
      AdminApi.respond(exchange, 403, AdminApi.error("an endpoint's secret needs admin.writeToken"));
      return;
    }
    TenantRecord current = AdminApi.await(registry.get(id)).tenant().map(StoredTenant::record)
        .orElse(null);
    long now = System.currentTimeMillis();
    ObjectNode out = JSON.createObjectNode().put("tenant", id).put("provider", provider);
    switch (method) {
      case "GET" -> {
        ArrayNode secrets = out.putArray("secrets");
        EndpointSecrets.opened(c, current, provider, now).forEach(secrets::add);
      }
      case "POST" -> {
        JsonNode body = AdminApi.body(exchange);
        String overlap = AdminApi.text(body, "overlap");
        String given = AdminApi.text(body, "secret");
        EndpointSecrets.Rotated rotated = EndpointSecrets.rotate(c, current, provider,
            given != null ? given : EndpointSecrets.fresh(), now,
            overlap == null ? EndpointSecrets.DEFAULT_OVERLAP : overlap(overlap));
        String by = "admin-api@" + exchange.getRemoteAddress().getAddress().getHostAddress();
        AdminApi.await(registry.put(id, rotated.record(), by));
        out.put("secret", rotated.secret());
        out.put("previousSignsUntil", Instant.ofEpochMilli(
            rotated.previousUntilMillis()).toString());
      }
      default -> {
        AdminApi.notAllowed(exchange, "GET, POST");
        return;
      }
    }
    AdminApi.respond(exchange, 200, out);
  }

  /** An overlap as written ({@code 24h}), refused naming the field otherwise. */
  public static Duration overlap(String text) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      throw new TenantInput.Refused("overlap", "expected a duration like 24h, 30m or 0s");
    }
  }

  private static int limit(String text) {
    if (text == null) {
      return DEFAULT_LIMIT;
    }
    try {
      int n = Integer.parseInt(text);
      if (n >= 1 && n <= TenantRegistry.MAX_LIST) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new TenantInput.Refused("limit", "expected 1 to " + TenantRegistry.MAX_LIST);
  }

  /** The registry's records and the file's entries under {@code prefix}, sorted, at most {@code limit}. */
  ObjectNode list(SluiceConfig c, String prefix, int limit) {
    TenantRegistry.Page page = AdminApi.await(registry.list(prefix, limit));
    return list(c, prefix, limit, page);
  }

  /** {@link #list(SluiceConfig, String, int)} from a page already read. */
  public static ObjectNode list(SluiceConfig c, String prefix, int limit, TenantRegistry.Page page) {
    List<ObjectNode> views = new ArrayList<>();
    Set<String> registered = new HashSet<>();
    for (StoredTenant t : page.tenants()) {
      registered.add(t.id());
      views.add(view(c, t.id(), Optional.of(t)));
    }
    c.tenants().keySet().stream().filter(id -> id.startsWith(prefix) && !registered.contains(id))
        .forEach(id -> views.add(view(c, id, Optional.empty())));
    views.sort(Comparator.comparing(v -> v.path("tenant").asText()));
    ObjectNode out = JSON.createObjectNode();
    ArrayNode tenants = out.putArray("tenants");
    views.stream().limit(limit).forEach(tenants::add);
    out.put("truncated", page.truncated() || views.size() > limit);
    return out;
  }

  /**
   * A tenant as the gate decides it: {@code {"tenant", "tier", "quotas", "shadow", "endpoints",
   * "source", "updatedBy", "updatedAt"}}, and {@code "fileEndpoints"} when the file gives it
   * endpoints; {@code source} is {@code registry} (its record), {@code yaml} (the file's entry) or
   * {@code default} (the default tier); {@code quotas} are the tenant's own overrides of its
   * tier's quotas; {@code endpoints} are the registry's (as a {@code PUT} gives them), each over
   * the file's toward the same provider ({@code fileEndpoints}, provider to URL). URLs are shown
   * as given, query included: this is for the holders of the admin tokens (or of Redis). Null
   * when the tenant is unknown (no record, no entry, no default tier).
   */
  public static ObjectNode view(SluiceConfig c, String id, Optional<StoredTenant> stored) {
    ObjectNode out = JSON.createObjectNode();
    out.put("tenant", id);
    TenantConfig file = c.tenants().get(id);
    TenantRecord record;
    String source;
    if (stored.isPresent()) {
      record = stored.get().record();
      source = "registry";
    } else if (file != null) {
      record = TenantRecord.of(file);
      source = "yaml";
    } else if (c.defaultTier() != null) {
      record = new TenantRecord(c.defaultTier(), Map.of(), false);
      source = "default";
    } else {
      return null;
    }
    // Shown: the endpoints' secrets as their key id only, never even sealed.
    out.setAll(TenantCodec.shown(record));
    if (file != null && !file.endpoints().isEmpty()) {
      ObjectNode fileEndpoints = out.putObject("fileEndpoints");
      new TreeMap<>(file.endpoints()).forEach((p, e) -> fileEndpoints.put(p, e.url().toString()));
    }
    out.put("source", source);
    out.put("updatedBy", stored.map(StoredTenant::by).orElse(null));
    out.put("updatedAt", stored.map(s -> s.at().toString()).orElse(null));
    if (stored.isPresent() && !c.tiers().containsKey(record.tier())) {
      out.put("note", "tier \"" + record.tier() + "\" is no longer configured: the record is"
          + " ignored until it is set again");
    }
    return out;
  }

  /** An audit trail: {@code {"changes":[{"at","by","before","after"}]}}, newest first. */
  public static ObjectNode changes(List<TenantChange> changes) {
    ObjectNode out = JSON.createObjectNode();
    ArrayNode all = out.putArray("changes");
    for (TenantChange change : changes) {
      ObjectNode one = all.addObject();
      one.put("at", change.at().toString());
      one.put("by", change.by());
      one.set("before", change.before() == null ? null : TenantCodec.shown(change.before()));
      one.set("after", change.after() == null ? null : TenantCodec.shown(change.after()));
    }
    return out;
  }
}
