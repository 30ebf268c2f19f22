package io.sluice.redis.tenants;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.config.EndpointSecret;
import io.sluice.config.ProviderLimit;
import io.sluice.config.Quota;
import io.sluice.config.QuotaRule;
import io.sluice.config.Rate;
import io.sluice.config.TenantEndpoint;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The registry's JSON, one form for Redis, the admin API and {@code sluice tenants --json}:
 * <pre>{"tier":"pro","quotas":{"payments-api":{"capacity":60,"refill":"20/s"}},"shadow":false,
 *  "endpoints":{"hooks":{"url":"https://hooks.acme.example/in","rate":"5/s"}}}</pre>
 * A refill is written per second ({@code 600/m} reads back as {@code 10/s}), in plain digits so
 * that {@link Rate#parse} reads it back exactly.
 *
 * <p>What is read from Redis is hostile too (anything may write there): a value longer than
 * {@value #MAX_VALUE_CHARS} characters, or one that is not a valid record, is no record (the file
 * and the default tier decide for that tenant), and who wrote it is cut to printable ASCII.
 */
public final class TenantCodec {
  /** Longest stored value read. */
  static final int MAX_VALUE_CHARS = 16_000;
  /** Longest "who" kept. */
  public static final int MAX_WHO = 100;
  private static final ObjectMapper JSON = new ObjectMapper();

  private TenantCodec() {}

  /** The record as JSON (no who or when). */
  public static ObjectNode json(TenantRecord record) {
    ObjectNode out = JSON.createObjectNode();
    out.put("tier", record.tier());
    ObjectNode quotas = out.putObject("quotas");
    new TreeMap<>(record.quotas()).forEach((provider, q) -> quota(quotas.putObject(provider), q));
    out.put("shadow", record.shadow());
    ObjectNode endpoints = out.putObject("endpoints");
    new TreeMap<>(record.endpoints()).forEach((provider, e) -> {
      ObjectNode one = endpoints.putObject(provider);
      one.put("url", e.url().toString());
      e.limits().stream().filter(l -> l.kind() == ProviderLimit.Kind.RATE).findFirst()
          .ifPresent(l -> one.put("rate", rate(new Rate(l.amount()))));
      e.secret().ifPresent(secret -> secret(one, provider, secret));
    });
    TenantBudgets budgets = record.budgets();
    if (budgets != null) {
      if (budgets.overall() == null) {
        out.putNull("overall");
      } else {
        quota(out.putObject("overall"), budgets.overall());
      }
      ObjectNode rules = out.putObject("rules");
      new TreeMap<>(budgets.rules()).forEach((name, r) -> {
        ObjectNode one = rules.putObject(name);
        putIfGiven(one, "provider", r.provider());
        putIfGiven(one, "path", r.path());
        putIfGiven(one, "attribute", r.attribute());
        putIfGiven(one, "equals", r.equals());
        quota(one, r.quota());
      });
    }
    return out;
  }

  /**
   * An endpoint's own signing secret, sealed: {@code "secret":{"sealed":"k1:..."}} and, during a
   * rotation's overlap, {@code "previousSecret":{"sealed":...},"previousUntil":<epoch ms>}; the
   * form {@code OperatorEntry} admits. A secret in the clear is never written: only the file's
   * endpoints hold one, and they are never a record's.
   */
  private static void secret(ObjectNode one, String provider, EndpointSecret secret) {
    if (!(secret instanceof EndpointSecret.Sealed sealed)) {
      throw new IllegalStateException("endpoints." + provider + ".secret: only a sealed secret is"
          + " written to the registry");
    }
    one.putObject("secret").put("sealed", sealed.current());
    if (sealed.previous() != null) {
      one.putObject("previousSecret").put("sealed", sealed.previous());
      one.put("previousUntil", sealed.previousUntilMillis());
    }
  }

  /**
   * The record as status, views, audit trails and {@code tenants get} show it: {@link #json},
   * each endpoint's sealed secrets replaced by {@code "signing":{"keyId":"k1"}} (and
   * {@code "previousSignsUntil"} during a rotation's overlap). Not even ciphertext is shown
   * there: a secret is shown only by the write-token routes that open it.
   */
  public static ObjectNode shown(TenantRecord record) {
    ObjectNode out = json(record);
    out.path("endpoints").forEach(one -> {
      ObjectNode e = (ObjectNode) one;
      JsonNode sealed = e.remove("secret");
      JsonNode previous = e.remove("previousSecret");
      JsonNode until = e.remove("previousUntil");
      if (sealed != null) {
        String text = sealed.path("sealed").asText();
        ObjectNode signing = e.putObject("signing");
        signing.put("keyId", text.substring(0, Math.max(0, text.indexOf(':'))));
        if (previous != null && until != null) {
          signing.put("previousSignsUntil", Instant.ofEpochMilli(until.asLong()).toString());
        }
      }
    });
    return out;
  }

  private static void putIfGiven(ObjectNode out, String field, String value) {
    if (value != null) {
      out.put(field, value);
    }
  }

  /** {@code "capacity"} (a whole number when it is one) and {@code "refill"} into {@code one}. */
  private static void quota(ObjectNode one, Quota q) {
    double c = q.capacity();
    if (c == Math.rint(c) && Math.abs(c) < 1e15) {
      one.put("capacity", (long) c);
    } else {
      one.put("capacity", c);
    }
    one.put("refill", rate(q.refill()));
  }

  /** A rate as {@code N/s} in plain digits ({@code 20/s}, {@code 0.5/s}). */
  public static String rate(Rate rate) {
    return new BigDecimal(Double.toString(rate.perSecond())).stripTrailingZeros().toPlainString() + "/s";
  }

  /** The value stored in the hash (after the script's time prefix): the record and who wrote it. */
  static String stored(TenantRecord record, String by) {
    ObjectNode out = json(record);
    out.put("by", who(by));
    return out.toString();
  }

  /** {@code text} as a JSON string literal. */
  static String quoted(String text) {
    try {
      return JSON.writeValueAsString(who(text));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A stored hash value, {@code "<atMillis> <json>"}; empty when it is not a valid record. */
  static Optional<StoredTenant> decode(String id, String value) {
    if (value == null || value.length() > MAX_VALUE_CHARS) {
      return Optional.empty();
    }
    int space = value.indexOf(' ');
    if (space < 0) {
      return Optional.empty();
    }
    try {
      Instant at = Instant.ofEpochMilli(Long.parseLong(value.substring(0, space)));
      JsonNode json = JSON.readTree(value.substring(space + 1));
      return record(json).map(r -> new StoredTenant(id, r, json.path("by").asText(""), at));
    } catch (NumberFormatException | JsonProcessingException | DateTimeException e) {
      return Optional.empty();
    }
  }

  /** One audit entry as the script wrote it; empty when unreadable. */
  static Optional<TenantChange> change(String value) {
    if (value == null || value.length() > 3 * MAX_VALUE_CHARS) {
      return Optional.empty();
    }
    try {
      JsonNode json = JSON.readTree(value);
      if (json == null || !json.path("at").canConvertToLong()) {
        return Optional.empty();
      }
      return Optional.of(new TenantChange(Instant.ofEpochMilli(json.path("at").asLong()),
          json.path("by").asText(""), record(json.path("before")).orElse(null),
          record(json.path("after")).orElse(null)));
    } catch (JsonProcessingException | DateTimeException e) {
      return Optional.empty();
    }
  }

  /** A record as {@link #json} writes it; empty when it is not one (trusted shape, not config). */
  static Optional<TenantRecord> record(JsonNode json) {
    if (json == null || !json.isObject() || !json.path("tier").isTextual()) {
      return Optional.empty();
    }
    Map<String, Quota> quotas = new HashMap<>();
    JsonNode q = json.path("quotas");
    if (!q.isMissingNode() && !q.isObject()) {
      return Optional.empty();
    }
    try {
      for (Iterator<Map.Entry<String, JsonNode>> it = q.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        quotas.put(e.getKey(), quota(e.getValue()));
      }
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    Map<String, TenantEndpoint> endpoints = new HashMap<>();
    JsonNode e = json.path("endpoints");
    if (!e.isMissingNode() && !e.isObject()) {
      return Optional.empty();
    }
    try {
      for (Iterator<Map.Entry<String, JsonNode>> it = e.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> one = it.next();
        endpoints.put(one.getKey(), endpoint(one.getValue()));
      }
    } catch (IllegalArgumentException | URISyntaxException bad) {
      return Optional.empty();
    }
    TenantBudgets budgets;
    try {
      budgets = budgets(json);
    } catch (IllegalArgumentException | NullPointerException bad) {
      return Optional.empty();
    }
    return Optional.of(new TenantRecord(json.path("tier").textValue(), quotas,
        json.path("shadow").asBoolean(false), endpoints, budgets));
  }

  /** A quota as {@link #json} writes it: {@code {"capacity":N,"refill":"R"}}. */
  private static Quota quota(JsonNode json) {
    return new Quota(json.path("capacity").asDouble(), Rate.parse(json.path("refill").asText()));
  }

  /** The budgets a record holds, or null when it holds none (neither overall nor rules). */
  private static TenantBudgets budgets(JsonNode json) {
    if (!json.has("overall") && !json.has("rules")) {
      return null;
    }
    JsonNode o = json.path("overall");
    Quota overall = o.isObject() ? quota(o) : null;
    Map<String, QuotaRule> rules = new HashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = json.path("rules").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode r = e.getValue();
      QuotaRule rule = new QuotaRule(text(r, "provider"), text(r, "path"), text(r, "attribute"),
          text(r, "equals"), quota(r));
      // What the gate relies on (BudgetInput checks it when written): a name fit for a key, a
      // condition, and an attribute only with the value it must have.
      BudgetInput.name(e.getKey());
      if (rule.provider() == null && rule.path() == null && rule.attribute() == null
          || (rule.attribute() == null) != (rule.equals() == null)) {
        throw new IllegalArgumentException("not a rule");
      }
      rules.put(e.getKey(), rule);
    }
    return new TenantBudgets(overall, rules);
  }

  private static String text(JsonNode json, String field) {
    return json.path(field).isTextual() ? json.path(field).textValue() : null;
  }

  /**
   * An endpoint as {@link #json} writes it: an absolute http or https URL with a host (whether
   * its provider may have it is asked where it is used: {@link TenantRecord#endpointOf}).
   */
  private static TenantEndpoint endpoint(JsonNode json) throws URISyntaxException {
    URI url = new URI(json.path("url").asText(""));
    String scheme = String.valueOf(url.getScheme()).toLowerCase(Locale.ROOT);
    if (url.getHost() == null || !(scheme.equals("https") || scheme.equals("http"))) {
      throw new IllegalArgumentException("not an endpoint");
    }
    List<ProviderLimit> limits = json.path("rate").isTextual()
        ? List.of(ProviderLimit.rate(Rate.parse(json.path("rate").textValue()).perSecond()))
        : List.of();
    return new TenantEndpoint(url, limits, sealedSecret(json), false);
  }

  /** An endpoint's sealed secret as {@link #secret} writes it; empty when it has none. */
  private static Optional<EndpointSecret> sealedSecret(JsonNode json) {
    JsonNode current = json.path("secret").path("sealed");
    if (json.path("secret").isMissingNode() || json.path("secret").isNull()) {
      return Optional.empty();
    }
    if (!current.isTextual()) {
      throw new IllegalArgumentException("not a sealed secret");
    }
    JsonNode previous = json.path("previousSecret").path("sealed");
    return Optional.of(previous.isTextual()
        ? new EndpointSecret.Sealed(current.textValue(), previous.textValue(),
            json.path("previousUntil").asLong(0))
        : new EndpointSecret.Sealed(current.textValue()));
  }

  /** Who wrote a change: printable ASCII, at most {@value #MAX_WHO} characters; never null. */
  static String who(String text) {
    if (text == null) {
      return "unknown";
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < text.length() && out.length() < MAX_WHO; i++) {
      char c = text.charAt(i);
      if (c >= 0x20 && c <= 0x7E) {
        out.append(c);
      }
    }
    String s = out.toString().strip();
    return s.isEmpty() ? "unknown" : s;
  }
}
