package io.sluice.redis.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.config.Quota;
import io.sluice.config.QuotaRule;
import io.sluice.config.SluiceConfig;
import io.sluice.redis.tenants.TenantInput.Refused;
import io.sluice.schemas.validation.AttributeHeader;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A tenant's overall budget and per-attribute rules as an operator gives them to the registry,
 * checked as the configuration loader checks the file's ({@code ConfigChecks}), every refusal
 * naming its field ({@code overall}, {@code overall.capacity}, {@code rules.<name>},
 * {@code rules.<name>.provider}, {@code rules.<name>.attribute}, ...).
 *
 * <ul>
 *   <li>a rule's name: 1 to {@value #MAX_NAME} of {@code A-Z a-z 0-9 . _ -} (it is part of the
 *       rule's Redis key);</li>
 *   <li>a rule names at least one condition (a budget across all providers is {@code overall});
 *       {@code attribute} and {@code equals} go together; {@code provider} is a configured one;
 *       a {@code path} is not empty and an {@code attribute} is an HTTP token, as the file's schema
 *       has them ({@code TenantSettingsAgreementTest} holds the two to one table);
 *       each text at most {@value TenantInput#MAX_TEXT} printable characters (no control, format,
 *       line-separator, private-use, surrogate or unassigned one);</li>
 *   <li>capacities and refills as for quotas ({@link TenantInput});</li>
 *   <li>at most {@value #MAX_RULES} rules per tenant.</li>
 * </ul>
 */
final class BudgetInput {
  /** Longest rule name. */
  static final int MAX_NAME = 64;
  /** Most rules one tenant's record holds. */
  static final int MAX_RULES = 20;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_NAME + "}");
  private static final List<String> RULE_FIELDS =
      List.of("provider", "path", "attribute", "equals", "capacity", "refill");

  private BudgetInput() {}

  /**
   * A command line's rule, {@code NAME=CAPACITY,REFILL[,provider=P][,path=X][,attribute=A,equals=V]}
   * ({@code refunds=5,10/h,provider=payments-api,path=refunds}), checked.
   */
  static Map.Entry<String, QuotaRule> rule(SluiceConfig config, String spec) {
    String s = TenantInput.bounded("rules", spec);
    int eq = s.indexOf('=');
    String[] parts = eq < 1 ? new String[0] : s.substring(eq + 1).split(",", -1);
    if (parts.length < 2) {
      throw new Refused("rules", "expected NAME=CAPACITY,REFILL[,provider=P][,path=X]"
          + "[,attribute=A,equals=V] like refunds=5,10/h,provider=payments-api,path=refunds, got "
          + TenantInput.shown(s));
    }
    String name = name(s.substring(0, eq).strip());
    Map<String, String> conditions = new TreeMap<>();
    for (int i = 2; i < parts.length; i++) {
      int at = parts[i].indexOf('=');
      String key = at < 0 ? parts[i].strip() : parts[i].substring(0, at).strip();
      if (at < 0 || !RULE_FIELDS.subList(0, 4).contains(key)) {
        throw new Refused("rules." + name, "expected provider=, path=, attribute= or equals=, got "
            + TenantInput.shown(parts[i]));
      }
      conditions.put(key, parts[i].substring(at + 1).strip());
    }
    return Map.entry(name, checked(config, name, conditions,
        TenantInput.number(parts[0].strip(), "rules." + name + ".capacity"), parts[1].strip()));
  }

  /** A command line's overall budget, {@code CAPACITY,REFILL}, or {@code none}: null. */
  static Quota overall(String spec) {
    String s = TenantInput.bounded("overall", spec).strip();
    if (s.equals("none")) {
      return null;
    }
    int comma = s.indexOf(',');
    if (comma < 0) {
      throw new Refused("overall", "expected CAPACITY,REFILL like 100,50/s, or none, got "
          + TenantInput.shown(s));
    }
    return TenantInput.quota("overall", TenantInput.number(s.substring(0, comma).strip(),
        "overall.capacity"), s.substring(comma + 1).strip());
  }

  /**
   * An API body's budgets: held when it has {@code overall} or {@code rules} (then what it does
   * not give is none), else null (the file's stay in force).
   */
  static TenantBudgets fromJson(SluiceConfig config, JsonNode body) {
    if (!body.has("overall") && !body.has("rules")) {
      return null;
    }
    Quota overall = null;
    JsonNode o = body.get("overall");
    if (o != null && !o.isNull()) {
      if (!o.isObject() || !o.path("capacity").isNumber() || !o.path("refill").isTextual()) {
        throw new Refused("overall", "expected {\"capacity\": NUMBER, \"refill\": \"20/s\"} or null");
      }
      overall = TenantInput.quota("overall", o.path("capacity").doubleValue(),
          o.path("refill").textValue());
    }
    Map<String, QuotaRule> rules = new TreeMap<>();
    JsonNode r = body.get("rules");
    if (r != null && !r.isNull()) {
      if (!r.isObject()) {
        throw new Refused("rules", "expected an object of rule name to {provider, path, attribute,"
            + " equals, capacity, refill}");
      }
      if (r.size() > MAX_RULES) {
        throw tooMany(r.size());
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = r.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String name = name(e.getKey());
        JsonNode one = e.getValue();
        String at = "rules." + name;
        if (!one.isObject() || !one.path("capacity").isNumber() || !one.path("refill").isTextual()) {
          throw new Refused(at, "expected {\"provider\"?, \"path\"?, \"attribute\"?, \"equals\"?,"
              + " \"capacity\": NUMBER, \"refill\": \"20/s\"}");
        }
        Map<String, String> conditions = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> f = one.fields(); f.hasNext(); ) {
          Map.Entry<String, JsonNode> field = f.next();
          if (!RULE_FIELDS.contains(field.getKey())) {
            throw new Refused(at + "." + TenantInput.shown(field.getKey()).replace("\"", ""),
                "unknown field (expected " + String.join(", ", RULE_FIELDS) + ")");
          }
          if (RULE_FIELDS.indexOf(field.getKey()) < 4) {
            if (!field.getValue().isTextual()) {
              throw new Refused(at + "." + field.getKey(), "expected a string");
            }
            conditions.put(field.getKey(), field.getValue().textValue());
          }
        }
        rules.put(name, checked(config, name, conditions, one.path("capacity").doubleValue(),
            one.path("refill").textValue()));
      }
    }
    return new TenantBudgets(overall, rules);
  }

  /** Refused when a tenant would hold more than {@value #MAX_RULES} rules. */
  static void checkCount(Map<String, QuotaRule> rules) {
    if (rules.size() > MAX_RULES) {
      throw tooMany(rules.size());
    }
  }

  /** {@code name} when it is a rule name, else refused. */
  static String name(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new Refused("rules", "a rule's name is 1 to " + MAX_NAME + " of A-Z a-z 0-9 . _ -, got "
          + TenantInput.shown(name));
    }
    return name;
  }

  private static QuotaRule checked(SluiceConfig config, String name, Map<String, String> conditions,
      double capacity, String refill) {
    String at = "rules." + name;
    conditions.forEach((k, v) -> printable(at + "." + k, TenantInput.bounded(at + "." + k, v)));
    String provider = conditions.get("provider");
    String attribute = conditions.get("attribute");
    String equals = conditions.get("equals");
    if (provider == null && conditions.get("path") == null && attribute == null) {
      throw new Refused(at, "matches every event: give a provider, a path or an attribute with "
          + "equals (a budget across all providers is the tenant's overall)");
    }
    if (conditions.containsKey("path") && conditions.get("path").isEmpty()) {
      // As the file's schema: an empty path would be a rule on every path, written unclearly.
      throw new Refused(at + ".path", "expected a path like refunds or v1/exports, got nothing");
    }
    if (attribute != null && !AttributeHeader.isToken(attribute)) {
      // As the file's schema: an attribute is sent as a request header, so only a header's name
      // can ever match.
      throw new Refused(at + ".attribute", "expected an attribute name (an HTTP token: letters,"
          + " digits and !#$%&'*+-.^_`|~), got " + TenantInput.shown(attribute));
    }
    if ((attribute == null) != (equals == null)) {
      throw new Refused(at + "." + (attribute == null ? "attribute" : "equals"),
          "attribute and equals go together: give both or neither");
    }
    if (provider != null && !config.providers().containsKey(provider)) {
      throw new Refused(at + ".provider", TenantInput.shown(provider) + " is not a configured "
          + "provider (providers: " + String.join(", ", new TreeSet<>(
              config.providers().keySet())) + ")");
    }
    Quota quota = TenantInput.quota(at, capacity, refill);
    return new QuotaRule(provider, conditions.get("path"), attribute, equals, quota);
  }

  /**
   * {@code text} when every character is printable: no control character (JSON writes each as six),
   * no format, line or paragraph separator, private-use, surrogate or unassigned one.
   */
  private static void printable(String field, String text) {
    for (int i = 0; i < text.length(); i++) {
      switch (Character.getType(text.charAt(i))) {
        case Character.CONTROL, Character.FORMAT, Character.LINE_SEPARATOR,
            Character.PARAGRAPH_SEPARATOR, Character.PRIVATE_USE, Character.SURROGATE,
            Character.UNASSIGNED -> throw new Refused(field, "only printable characters, got one"
            + String.format(" (U+%04X) at %d", (int) text.charAt(i), i));
        default -> { }
      }
    }
  }

  private static Refused tooMany(int count) {
    return new Refused("rules", "at most " + MAX_RULES + " per tenant, got " + count);
  }
}
