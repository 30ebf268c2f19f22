package io.sluice.redis.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.config.Quota;
import io.sluice.config.QuotaRule;
import io.sluice.config.Rate;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import io.sluice.config.TenantEndpoint;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What an operator asks the registry to hold, checked against the configuration before anything
 * is written: operator input is hostile until bounded, whether typed on a command line or sent to
 * the admin API. Every refusal is a {@link Refused} whose message starts with the field it is about
 * ({@code tenant}, {@code tier}, {@code shadow}, {@code quotas.<provider>}, {@code
 * quotas.<provider>.capacity}, {@code quotas.<provider>.refill}, {@code endpoints.<provider>} and
 * its {@code .url} and {@code .rate}: {@link EndpointInput}).
 *
 * <p>Bounds: a tenant id as events have it (1 to {@value #MAX_ID} of {@code A-Z a-z 0-9 . _ : -});
 * a configured tier; quotas only toward configured providers (so at most one per provider); a
 * capacity above 0 and at most {@value #MAX_CAPACITY} cost units; a refill as the file writes it
 * ({@link Rate#parse}: {@code 20/s}, {@code 600/m}, {@code 10/h}), at most {@value #MAX_REFILL}
 * per second; any text read at most {@value #MAX_TEXT} characters; endpoints as
 * {@link EndpointInput} bounds them; the whole record encoded at most {@value #MAX_RECORD_CHARS}
 * characters ({@link #checkSize}), so that what is written reads back.
 */
public final class TenantInput {
  /** Longest tenant id, as in {@code WorkEvent.tenant}. */
  public static final int MAX_ID = 128;
  /** Largest capacity, in cost units. */
  public static final double MAX_CAPACITY = 1e9;
  /** Largest refill, in cost units per second. */
  public static final double MAX_REFILL = 1e9;
  /** {@link #MAX_REFILL} as written in messages. */
  static final String MAX_REFILL_TEXT = "1000000000";
  /** Longest text looked at (a quota spec, a rate, a tier). */
  static final int MAX_TEXT = 100;
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9._:-]{1," + MAX_ID + "}");
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._:-]{0," + MAX_ID + "}");

  private TenantInput() {}

  /** A refused input; the message starts with the field. */
  public static final class Refused extends IllegalArgumentException {
    public Refused(String field, String message) {
      super(field + ": " + message);
    }
  }

  /** {@code id} when it is a tenant id, else refused. */
  public static String checkId(String id) {
    if (id == null || !ID.matcher(id).matches()) {
      throw new Refused("tenant", "expected 1 to " + MAX_ID + " of A-Z a-z 0-9 . _ : -, got "
          + shown(id));
    }
    return id;
  }

  /** A list prefix: like an id, possibly empty; null is empty. */
  public static String checkPrefix(String prefix) {
    if (prefix == null) {
      return "";
    }
    if (!PREFIX.matcher(prefix).matches()) {
      throw new Refused("prefix", "expected up to " + MAX_ID + " of A-Z a-z 0-9 . _ : -, got "
          + shown(prefix));
    }
    return prefix;
  }

  /**
   * The record of a command line: {@code tier}, {@code quotas} ({@code provider=capacity,refill},
   * as {@code payments-api=60,20/s}) and {@code shadow} given override {@code current} (the
   * tenant's registry record, else its file entry; null when it has neither); what is not given
   * keeps its current value (a tenant with neither: the default tier, no quota of its own, not in
   * shadow mode). A quota given for a provider replaces that provider's only.
   */
  public static TenantRecord fromCommandLine(SluiceConfig config, TenantRecord current, String tier,
      List<String> quotas, Boolean shadow) {
    return fromCommandLine(config, current, new Changes(tier, quotas, shadow, null, null));
  }

  /**
   * What a {@code tenants set} command line gives; null or empty: unchanged.
   *
   * @param endpoints       {@code provider=url} or {@code provider=url,rate=5/s} ({@link EndpointInput})
   * @param removeEndpoints providers whose registry endpoint goes (the file's applies again)
   * @param rules           {@code name=capacity,refill[,provider=P][,path=X][,attribute=A,equals=V]}
   *                        ({@link BudgetInput})
   * @param removeRules     names of rules that go
   * @param overall         {@code capacity,refill}, or {@code none}
   */
  public record Changes(String tier, List<String> quotas, Boolean shadow, List<String> endpoints,
      List<String> removeEndpoints, List<String> rules, List<String> removeRules, String overall) {
    public Changes {
      quotas = quotas == null ? List.of() : List.copyOf(quotas);
      endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
      removeEndpoints = removeEndpoints == null ? List.of() : List.copyOf(removeEndpoints);
      rules = rules == null ? List.of() : List.copyOf(rules);
      removeRules = removeRules == null ? List.of() : List.copyOf(removeRules);
    }

    /** Changes of the tier, quotas, shadow flag and endpoints only. */
    public Changes(String tier, List<String> quotas, Boolean shadow, List<String> endpoints,
        List<String> removeEndpoints) {
      this(tier, quotas, shadow, endpoints, removeEndpoints, null, null, null);
    }

    boolean budgets() {
      return !rules.isEmpty() || !removeRules.isEmpty() || overall != null;
    }
  }

  /**
   * {@link #fromCommandLine(SluiceConfig, TenantRecord, String, List, Boolean)} with endpoints: an
   * endpoint given for a provider replaces that provider's only; one removed must be in
   * {@code current}'s record (the file's endpoints are changed in the file).
   */
  public static TenantRecord fromCommandLine(SluiceConfig config, TenantRecord current, Changes given) {
    return fromCommandLine(config, null, current, given);
  }

  /**
   * {@link #fromCommandLine(SluiceConfig, TenantRecord, Changes)} for the tenant {@code id} (null:
   * none in the file). The overall budget and rules are the record's only when the command gives
   * {@code --overall}, {@code --rule} or {@code --remove-rule}: then they start from those in
   * force (the record's, else the file's entry's), and follow the file's no more. Otherwise a record
   * without them stays without them, and the file's stay in force (a later file edit applies).
   */
  public static TenantRecord fromCommandLine(SluiceConfig config, String id, TenantRecord current,
      Changes given) {
    String t = given.tier() != null ? given.tier() : current != null ? current.tier() : config.defaultTier();
    if (t == null) {
      throw new Refused("tier", "required: the tenant has no record, no entry in the file, and"
          + " there is no defaultTier (give --tier)");
    }
    checkTier(config, t);
    Map<String, Quota> out = new TreeMap<>(current == null ? Map.of() : current.quotas());
    for (String spec : given.quotas()) {
      String s = bounded("quotas", spec);
      int eq = s.indexOf('=');
      int comma = s.indexOf(',', eq + 1);
      if (eq < 1 || comma < 0) {
        throw new Refused("quotas", "expected PROVIDER=CAPACITY,REFILL like payments-api=60,20/s,"
            + " got " + shown(s));
      }
      String provider = checkProvider(config, s.substring(0, eq).strip());
      out.put(provider, quota("quotas." + provider, number(s.substring(eq + 1, comma).strip(),
          "quotas." + provider + ".capacity"), s.substring(comma + 1)));
    }
    Map<String, TenantEndpoint> endpoints =
        new TreeMap<>(current == null ? Map.of() : current.endpoints());
    for (String provider : given.removeEndpoints()) {
      if (endpoints.remove(provider) == null) {
        throw new Refused("endpoints." + shown(provider).replace("\"", ""), "the tenant has no"
            + " endpoint toward it in the registry (one in the file is changed in the file)");
      }
    }
    for (String spec : given.endpoints()) {
      Map.Entry<String, TenantEndpoint> e = EndpointInput.fromCommandLine(config, spec);
      endpoints.put(e.getKey(), e.getValue());
    }
    EndpointInput.checkCount(endpoints);
    TenantBudgets budgets = current == null ? null : current.budgets();
    if (given.budgets()) {
      budgets = budgets(config, budgets != null ? budgets : fileBudgets(config, id), given);
    }
    return checkSize(new TenantRecord(t, out, given.shadow() != null ? given.shadow()
        : current != null && current.shadow(), endpoints, budgets));
  }

  /** {@code current} with the rules and overall budget {@code given} changes. */
  private static TenantBudgets budgets(SluiceConfig config, TenantBudgets current, Changes given) {
    Map<String, QuotaRule> rules = new TreeMap<>(current.rules());
    for (String name : given.removeRules()) {
      if (rules.remove(name) == null) {
        throw new Refused("rules." + shown(name).replace("\"", ""), "the tenant has no such rule");
      }
    }
    for (String spec : given.rules()) {
      Map.Entry<String, QuotaRule> rule = BudgetInput.rule(config, spec);
      rules.put(rule.getKey(), rule.getValue());
    }
    BudgetInput.checkCount(rules);
    return new TenantBudgets(given.overall() != null ? BudgetInput.overall(given.overall())
        : current.overall(), rules);
  }

  /**
   * The record of an admin API body, {@code {"tier":..., "quotas":{P:{"capacity":N,
   * "refill":"20/s"}}, "shadow":bool, "endpoints":{P:"https://..." | {"url":..., "rate":"5/s"}}}}:
   * the whole record (tier required; no quotas, no shadow and no endpoints mean none, false and
   * none). Unknown fields are refused, so that a typo is not silently ignored.
   */
  public static TenantRecord fromJson(SluiceConfig config, JsonNode body) {
    if (body == null || !body.isObject()) {
      throw new Refused("body", "expected a JSON object with tier, quotas and shadow");
    }
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String field = it.next();
      if (!List.of("tier", "quotas", "shadow", "endpoints", "overall", "rules").contains(field)) {
        throw new Refused(shown(field), "unknown field (expected tier, quotas, shadow, endpoints,"
            + " overall, rules)");
      }
    }
    JsonNode tier = body.get("tier");
    if (tier == null || !tier.isTextual()) {
      throw new Refused("tier", "required, a string naming a configured tier");
    }
    checkTier(config, bounded("tier", tier.textValue()));
    JsonNode shadow = body.get("shadow");
    if (shadow != null && !shadow.isNull() && !shadow.isBoolean()) {
      throw new Refused("shadow", "expected true or false");
    }
    Map<String, Quota> quotas = new TreeMap<>();
    JsonNode q = body.get("quotas");
    if (q != null && !q.isNull()) {
      if (!q.isObject()) {
        throw new Refused("quotas", "expected an object of provider to {capacity, refill}");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = q.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String provider = checkProvider(config, e.getKey());
        JsonNode one = e.getValue();
        String at = "quotas." + provider;
        if (!one.isObject() || !one.path("capacity").isNumber() || !one.path("refill").isTextual()) {
          throw new Refused(at, "expected {\"capacity\": NUMBER, \"refill\": \"20/s\"}");
        }
        quotas.put(provider, quota(at, one.path("capacity").doubleValue(),
            one.path("refill").textValue()));
      }
    }
    return checkSize(new TenantRecord(tier.textValue(), quotas,
        shadow != null && shadow.asBoolean(false), EndpointInput.fromJson(config,
            body.get("endpoints")), BudgetInput.fromJson(config, body)));
  }

  /**
   * Longest record written, as {@link TenantCodec} encodes it: what the registry reads back
   * ({@link TenantCodec#MAX_VALUE_CHARS}) less room for the time and who wrote it.
   */
  public static final int MAX_RECORD_CHARS = TenantCodec.MAX_VALUE_CHARS - 400;

  /**
   * {@code record} when its encoding fits {@link #MAX_RECORD_CHARS} (8 endpoints with long URLs
   * and 20 rules can exceed it); else refused, naming its largest field and the sizes, rather than
   * written and read back as no record.
   */
  public static TenantRecord checkSize(TenantRecord record) {
    ObjectNode json = TenantCodec.json(record);
    int size = json.toString().length();
    if (size <= MAX_RECORD_CHARS) {
      return record;
    }
    String largest = null;
    int most = -1;
    for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      int length = e.getValue().toString().length();
      if (length > most) {
        largest = e.getKey();
        most = length;
      }
    }
    throw new Refused(largest, most + " characters encoded, making the record " + size
        + ", more than the " + MAX_RECORD_CHARS + " a record may have: shorten it");
  }

  /**
   * The tenant's current record for a merge: the registry's, else the file's entry (its tier,
   * quotas and shadow flag; not its overall budget and rules, which stay the file's unless a
   * command changes them: {@link #fromCommandLine(SluiceConfig, String, TenantRecord, Changes)}),
   * else null.
   */
  public static TenantRecord current(SluiceConfig config, String id, TenantRecord registered) {
    if (registered != null) {
      return registered;
    }
    TenantConfig file = config.tenants().get(id);
    return file == null ? null : new TenantRecord(file.tier(), file.quotas(), file.shadow());
  }

  /** The file's overall budget and rules for {@code id}, as a start to change; none without. */
  private static TenantBudgets fileBudgets(SluiceConfig config, String id) {
    TenantConfig file = id == null ? null : config.tenants().get(id);
    return file == null ? TenantBudgets.NONE : new TenantBudgets(file.overall(), file.rules());
  }

  private static void checkTier(SluiceConfig config, String tier) {
    if (!config.tiers().containsKey(tier)) {
      throw new Refused("tier", shown(tier) + " is not a configured tier (tiers: "
          + String.join(", ", new TreeSet<>(config.tiers().keySet())) + ")");
    }
  }

  private static String checkProvider(SluiceConfig config, String provider) {
    if (!config.providers().containsKey(provider)) {
      throw new Refused("quotas." + shown(provider), "not a configured provider (providers: "
          + String.join(", ", new TreeSet<>(config.providers().keySet())) + ")");
    }
    return provider;
  }

  /** A quota at {@code at} ({@code quotas.<provider>}, {@code overall}, {@code rules.<name>}), checked. */
  static Quota quota(String at, double capacity, String refill) {
    if (!(capacity > 0) || capacity > MAX_CAPACITY) {
      throw new Refused(at + ".capacity", "expected a number above 0 and at most "
          + (long) MAX_CAPACITY + ", got " + capacity);
    }
    Rate rate;
    try {
      rate = Rate.parse(bounded(at + ".refill", refill));
    } catch (IllegalArgumentException e) {
      throw new Refused(at + ".refill", "expected a rate like 20/s, 600/m or 10/h, got "
          + shown(refill));
    }
    if (rate.perSecond() > MAX_REFILL) {
      throw new Refused(at + ".refill", "at most " + (long) MAX_REFILL + "/s, got " + TenantCodec.rate(rate));
    }
    return new Quota(capacity, rate);
  }

  /** A capacity at {@code field}, as a number (checked with its quota). */
  static double number(String text, String field) {
    try {
      return Double.parseDouble(bounded(field, text));
    } catch (NumberFormatException e) {
      throw new Refused(field, "expected a number, got " + shown(text));
    }
  }

  static String bounded(String field, String text) {
    if (text == null || text.length() > MAX_TEXT) {
      throw new Refused(field, text == null ? "missing" : "longer than " + MAX_TEXT + " characters");
    }
    return text;
  }

  /** A value quoted in a message: printable ASCII, at most 60 characters. */
  static String shown(String text) {
    if (text == null) {
      return "nothing";
    }
    String who = TenantCodec.who(text.length() > 60 ? text.substring(0, 60) : text);
    return "\"" + who + "\"";
  }
}
