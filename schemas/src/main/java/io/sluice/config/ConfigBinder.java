package io.sluice.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Maps a schema-valid configuration tree to the records, filling in {@link ConfigDefaults}.
 *
 * <p>The schema has already fixed every type and shape, so what can still fail here is only what a
 * pattern cannot see: a rate of {@code 0/s}, a duration too long for a {@link Duration}, a URL that
 * looks right but does not parse. Such a value is recorded as a {@link Problem} and replaced by a
 * placeholder, so binding completes and the cross-field checks still run: the user sees every
 * problem in one report. A config with problems is never returned to a caller.
 */
final class ConfigBinder {
  private static final Rate PLACEHOLDER_RATE = new Rate(1);

  private final List<Problem> problems = new ArrayList<>();
  /** What {@code ${env:NAME}} secrets are read from. */
  private final Map<String, String> env;
  /** Whether providers' credentials must be readable ({@link ConfigLoader#loadForOperator}). */
  private final boolean credentialsNeeded;

  ConfigBinder() {
    this(Map.of());
  }

  ConfigBinder(Map<String, String> env) {
    this(env, true);
  }

  ConfigBinder(Map<String, String> env, boolean credentialsNeeded) {
    this.env = env;
    this.credentialsNeeded = credentialsNeeded;
  }

  List<Problem> problems() {
    return problems;
  }

  SluiceConfig bind(JsonNode root) {
    JsonNode kafka = root.path("kafka");
    JsonNode gate = root.path("gate");
    JsonNode dispatcher = root.path("dispatcher");
    List<Duration> ladder = ladder(root.get("ladder"));
    // By default an event may ask to wait as long as the ladder's longest step: one delay record.
    defaultMaxDelay = ladder.isEmpty() ? ProviderIntake.DEFAULT_MAX_DELAY : ladder.get(ladder.size() - 1);
    return new SluiceConfig(
        new KafkaConfig(
            text(kafka, "bootstrap", ConfigDefaults.KAFKA_BOOTSTRAP),
            text(kafka, "topicPrefix", ConfigDefaults.TOPIC_PREFIX),
            kafkaProperties(kafka.path("properties")),
            kafka.path("hangingTransactions").path("sweep").asBoolean(true)),
        redis(text(root.path("redis"), "uri", ConfigDefaults.REDIS_URI)),
        ladder,
        integer(root, "maxAttempts", ConfigDefaults.MAX_ATTEMPTS),
        duration(root, "reservationHorizon", ConfigDefaults.RESERVATION_HORIZON, ""),
        tiers(root.path("tiers")),
        text(root, "defaultTier", null),
        providers(root.path("providers")),
        tenants(root.path("tenants"), text(root, "defaultTier", null)),
        new HttpConfig(integer(root.path("http"), "port", ConfigDefaults.HTTP_PORT),
            text(root.path("http"), "bind", ConfigDefaults.HTTP_BIND)),
        new GateConfig(
            text(gate, "applicationId", ConfigDefaults.GATE_APPLICATION_ID),
            integer(gate, "streamThreads", ConfigDefaults.GATE_STREAM_THREADS),
            integer(gate, "maxPayloadBytes", ConfigDefaults.GATE_MAX_PAYLOAD_BYTES),
            duration(gate, "leaseTarget", ConfigDefaults.GATE_LEASE_TARGET, "gate"),
            integer(gate, "maxLease", ConfigDefaults.GATE_MAX_LEASE),
            duration(gate, "redisTimeout", ConfigDefaults.GATE_REDIS_TIMEOUT, "gate"),
            gate.path("receipts").asBoolean(false)),
        new DispatcherConfig(
            text(dispatcher, "groupId", ConfigDefaults.DISPATCHER_GROUP_ID),
            integer(dispatcher, "bufferSize", ConfigDefaults.DISPATCHER_BUFFER_SIZE),
            duration(dispatcher, "lookahead", ConfigDefaults.DISPATCHER_LOOKAHEAD, "dispatcher"),
            duration(dispatcher, "backoffBase", ConfigDefaults.DISPATCHER_BACKOFF_BASE,
                "dispatcher"),
            duration(dispatcher, "backoffCap", ConfigDefaults.DISPATCHER_BACKOFF_CAP, "dispatcher"),
            number(dispatcher, "minRateFactor", ConfigDefaults.DISPATCHER_MIN_RATE_FACTOR),
            duration(dispatcher, "recovery", ConfigDefaults.DISPATCHER_RECOVERY, "dispatcher"),
            integer(dispatcher, "bufferBytes", ConfigDefaults.DISPATCHER_BUFFER_BYTES),
            duration(dispatcher, "priorityAging", ConfigDefaults.DISPATCHER_PRIORITY_AGING,
                "dispatcher")),
        admin(root.path("admin")),
        new LoggingConfig(optional(root.path("logging"), "format"),
            optional(root.path("logging"), "level"), optional(root.path("logging"), "events")),
        sealingKeys(root.path("secrets").path("sealingKeys")),
        tracing(root.path("tracing")));
  }

  /** {@code tracing:}: off unless {@code otlpEndpoint} is set; each bad value named by its path. */
  private TracingConfig tracing(JsonNode tracing) {
    String endpoint = text(tracing, "otlpEndpoint", null);
    double ratio = number(tracing, "sampleRatio", TracingConfig.OFF.sampleRatio());
    if (!(ratio >= 0 && ratio <= 1)) {
      problems.add(new Problem("tracing.sampleRatio", "expected a number from 0 to 1, got " + ratio));
    }
    int maxQueue = integer(tracing, "maxQueue", ConfigDefaults.TRACING_MAX_QUEUE);
    if (maxQueue < 1) {
      problems.add(new Problem("tracing.maxQueue", "expected at least 1, got " + maxQueue));
    }
    return new TracingConfig(
        Optional.ofNullable(endpoint).map(e -> url(e, "tracing.otlpEndpoint")),
        ratio, maxQueue, text(tracing, "serviceName", TracingConfig.OFF.serviceName()));
  }

  private static Optional<String> optional(JsonNode parent, String field) {
    return Optional.ofNullable(text(parent, field, null));
  }

  /** {@code admin:}: the admin API's tokens (secrets) and whether other hosts may use it. */
  private AdminConfig admin(JsonNode admin) {
    return new AdminConfig(token(admin, "readToken"), token(admin, "writeToken"),
        admin.path("allowRemote").asBoolean(false));
  }

  private Optional<Secret> token(JsonNode admin, String field) {
    JsonNode node = admin.get(field);
    if (node == null || node.isNull()) {
      return Optional.empty();
    }
    try {
      Secret token = Secret.resolve(node.asText(), env);
      if (token.isRead() && !AdminConfig.strongEnough(token.value())) {
        // Never the value, nor its length: a message names the field and the rule only.
        problems.add(new Problem("admin." + field, "expected at least "
            + AdminConfig.MIN_TOKEN_LENGTH + " characters (a random one: openssl rand -hex 16), "
            + "got fewer in " + token.reference()));
        return Optional.empty();
      }
      return Optional.of(token);
    } catch (IllegalArgumentException e) {
      problems.add(new Problem("admin." + field, e.getMessage()));
      return Optional.empty();
    }
  }

  /** Kafka property values are kept as text, as Kafka's own {@code .properties} files hold them. */
  private static Map<String, String> kafkaProperties(JsonNode node) {
    Map<String, String> properties = new LinkedHashMap<>();
    node.properties().forEach(e -> properties.put(e.getKey(), e.getValue().asText()));
    return properties;
  }

  /**
   * A URI the schema's pattern let through may still not parse (a port of 99999, two hosts on a
   * standalone scheme). The message never shows the URI: it may hold a password.
   */
  private RedisConfig redis(String uri) {
    try {
      RedisUri.parse(uri);
    } catch (IllegalArgumentException e) {
      problems.add(new Problem("redis.uri", e.getMessage() + ", in " + Secrets.uri(uri)));
    }
    return new RedisConfig(uri);
  }

  /** A provider's {@code maxDelay} when it gives none: the ladder's longest step. */
  private Duration defaultMaxDelay = ProviderIntake.DEFAULT_MAX_DELAY;

  private List<Duration> ladder(JsonNode node) {
    if (node == null) {
      return ConfigDefaults.LADDER;
    }
    List<Duration> steps = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      steps.add(parseDuration(node.get(i).asText(), Problem.index("ladder", i), Duration.ZERO));
    }
    return steps;
  }

  private Map<String, TierConfig> tiers(JsonNode node) {
    Map<String, TierConfig> tiers = new LinkedHashMap<>();
    node.properties().forEach(e -> tiers.put(e.getKey(),
        new TierConfig(number(e.getValue(), "weight", ConfigDefaults.TIER_WEIGHT),
            quotas(e.getValue().path("budgets"), Problem.join(Problem.join("tiers", e.getKey()),
                "budgets")))));
    return tiers;
  }

  private Map<String, ProviderConfig> providers(JsonNode node) {
    Map<String, ProviderConfig> providers = new LinkedHashMap<>();
    node.properties().forEach(e -> providers.put(e.getKey(),
        provider(e.getValue(), Problem.join("providers", e.getKey()))));
    return providers;
  }

  private ProviderConfig provider(JsonNode node, String path) {
    List<String> forwardHeaders = new ArrayList<>();
    node.path("forwardHeaders").forEach(h -> forwardHeaders.add(h.asText()));
    JsonNode policy = node.get("onRedisDown");
    List<ProviderLimit> limits = new ProviderLimitsBinder(problems).bind(node, path);
    Rate rate = node.has("rate") ? rate(node.path("rate").asText(), Problem.join(path, "rate"))
        : limits.isEmpty() ? PLACEHOLDER_RATE
        : new Rate(limits.stream().filter(l -> l.kind() == ProviderLimit.Kind.RATE)
            .mapToDouble(ProviderLimit::amount).findFirst().orElse(1));
    ProviderEndpoints endpoints = endpoints(node, path);
    return new ProviderConfig(
        providerUrl(node, path, endpoints.perTenant()),
        rate,
        integer(node, "maxInFlight", ConfigDefaults.MAX_IN_FLIGHT),
        duration(node, "timeout", ConfigDefaults.TIMEOUT, path),
        policy == null ? ConfigDefaults.ON_REDIS_DOWN : RedisDownPolicy.fromCode(policy.asText()),
        node.has("shadow") ? node.get("shadow").asBoolean() : ConfigDefaults.SHADOW,
        node.has("forwardHeaders") ? forwardHeaders : ConfigDefaults.FORWARD_HEADERS,
        integer(node, "maxCost", ConfigDefaults.MAX_COST),
        quotas(node.path("quotas"), Problem.join(path, "quotas")),
        limits,
        new AnswerBounds(
            node.has("learn") ? node.get("learn").asBoolean() : ConfigDefaults.LEARN,
            number(node, "learnedFloor", ConfigDefaults.LEARNED_FLOOR),
            duration(node, "maxRetryAfter", ConfigDefaults.MAX_RETRY_AFTER, path)),
        new ProviderRequestBinder(problems, env, credentialsNeeded).bind(node, path),
        endpoints,
        new ProviderIntake(
            longDuration(node, "maxDelay", defaultMaxDelay, path),
            longDuration(node, "dedupWindow", Duration.ZERO, path),
            new OrderingRule("perKey".equals(text(node, "ordering", "none")),
                "deadLetter".equals(text(node, "orderingOnDeadHead", "release")),
                integer(node, "maxOrderingKeys", OrderingRule.DEFAULT_KEYS_IN_FLIGHT))),
        batch(node.get("batch"), Problem.join(path, "batch")));
  }

  /**
   * {@code batch: {maxEvents, maxBytes, maxWait}} ({@link BatchRule}); absent: one call per
   * event. The schema has checked the numbers; a wait beyond {@link BatchRule#MAX_WAIT} is named
   * here.
   */
  private BatchRule batch(JsonNode node, String path) {
    if (node == null || node.isNull() || !node.isObject()) {
      return BatchRule.OFF;
    }
    Duration maxWait = duration(node, "maxWait", Duration.ZERO, path);
    if (maxWait.compareTo(BatchRule.MAX_WAIT) > 0) {
      problems.add(new Problem(Problem.join(path, "maxWait"), "expected at most "
          + BatchRule.MAX_WAIT.toSeconds() + "s, got " + ConfigSchema.quoted(node.get("maxWait")
          .asText())));
      maxWait = Duration.ZERO;
    }
    try {
      return new BatchRule(integer(node, "maxEvents", 1),
          integer(node, "maxBytes", BatchRule.DEFAULT_BYTES), maxWait);
    } catch (IllegalArgumentException e) {
      problems.add(new Problem(path, e.getMessage()));
      return BatchRule.OFF;
    }
  }

  /** A duration that may be given in days ({@code 7d}): the text of an event's {@code delay}. */
  private Duration longDuration(JsonNode parent, String field, Duration fallback, String parentPath) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return fallback;
    }
    Duration parsed = DelayText.parse(node.asText());
    if (parsed == null) {
      problems.add(new Problem(Problem.join(parentPath, field), "expected a duration like \"10m\", "
          + "\"6h\" or \"7d\" (at most " + DelayText.MAX_DIGITS + " digits), got "
          + ConfigSchema.quoted(node.asText())));
      return fallback;
    }
    return parsed;
  }

  /** Settings only a per-tenant provider takes; given to a provider with one URL, a mistake. */
  private static final List<String> PER_TENANT_ONLY = List.of("totalRate", "allowedHosts",
      "allowPrivateNetworks", "allowPlainHttp", "disableAfter", "probeAfter", "whileDisabled",
      "sharedSigningSecret");

  /** {@code endpoints: perTenant} and the settings that go with it ({@link ProviderEndpoints}). */
  private ProviderEndpoints endpoints(JsonNode node, String path) {
    boolean perTenant = "perTenant".equals(text(node, "endpoints", null));
    if (!perTenant) {
      for (String field : PER_TENANT_ONLY) {
        if (node.has(field)) {
          problems.add(new Problem(Problem.join(path, field), "applies to per-tenant endpoints "
              + "only; add endpoints: perTenant, or remove it"));
        }
      }
      return ProviderEndpoints.SINGLE;
    }
    List<String> hosts = new ArrayList<>();
    node.path("allowedHosts").forEach(h -> hosts.add(h.asText()));
    JsonNode whileDisabled = node.get("whileDisabled");
    return new ProviderEndpoints(true,
        node.has("totalRate") ? Optional.of(
            rate(node.get("totalRate").asText(), Problem.join(path, "totalRate")))
            : Optional.empty(),
        hosts,
        node.has("allowPrivateNetworks") ? node.get("allowPrivateNetworks").asBoolean()
            : ConfigDefaults.ALLOW_PRIVATE_NETWORKS,
        duration(node, "disableAfter", ConfigDefaults.DISABLE_AFTER, path),
        duration(node, "probeAfter", ConfigDefaults.PROBE_AFTER, path),
        whileDisabled == null ? ConfigDefaults.WHILE_DISABLED
            : ProviderEndpoints.WhileDisabled.fromCode(whileDisabled.asText()),
        node.has("allowPlainHttp") && node.get("allowPlainHttp").asBoolean(),
        node.has("sharedSigningSecret") && node.get("sharedSigningSecret").asBoolean());
  }

  /** The provider's one URL (the schema requires it unless each tenant has its own endpoint). */
  private URI providerUrl(JsonNode node, String path, boolean perTenant) {
    if (perTenant && !node.has("url")) {
      return URI.create("http://invalid");
    }
    return url(node.path("url").asText(), Problem.join(path, "url"));
  }

  /**
   * A tenant's endpoints: a URL alone ({@code hooks: https://...}), or a URL with the endpoint's
   * own {@code rate} or {@code limits} ({@code hooks: {url: ..., rate: 5/s}}).
   */
  private Map<String, TenantEndpoint> endpointsOf(JsonNode node, String path) {
    Map<String, TenantEndpoint> endpoints = new LinkedHashMap<>();
    node.properties().forEach(e -> {
      String at = Problem.join(path, e.getKey());
      JsonNode value = e.getValue();
      if (value.isTextual()) {
        endpoints.put(e.getKey(), new TenantEndpoint(url(value.asText(), at)));
        return;
      }
      List<ProviderLimit> limits = value.has("rate") || value.has("limits")
          ? new ProviderLimitsBinder(problems).bind(value, at) : List.of();
      if (value.has("rate")) {
        limits = List.of(ProviderLimit.rate(rate(value.get("rate").asText(),
            Problem.join(at, "rate")).perSecond()));
      }
      endpoints.put(e.getKey(), new TenantEndpoint(
          url(value.path("url").asText(), Problem.join(at, "url")), limits,
          endpointSecret(value.get("secret"), Problem.join(at, "secret")),
          value.path("sendProviderAuth").asBoolean(false)));
    });
    return endpoints;
  }

  /**
   * An endpoint's own signing secret: one secret or a list (to rotate: the new one first beside
   * the old), each a Standard Webhooks secret; empty when not given.
   */
  private Optional<EndpointSecret> endpointSecret(JsonNode node, String path) {
    if (node == null || node.isNull()) {
      return Optional.empty();
    }
    List<Secret> secrets = new ArrayList<>();
    List<JsonNode> given = new ArrayList<>();
    if (node.isArray()) {
      node.forEach(given::add);
    } else {
      given.add(node);
    }
    for (int i = 0; i < given.size(); i++) {
      String at = node.isArray() ? Problem.index(path, i) : path;
      Secret secret = resolved(given.get(i).asText(), at);
      if (secret == null) {
        continue;
      }
      if (secret.isRead()) {
        try {
          WebhookSecret.key(secret.value());
        } catch (IllegalArgumentException e) {
          problems.add(new Problem(at, e.getMessage() + " (in " + secret.reference() + ")"));
        }
      }
      secrets.add(secret);
    }
    return secrets.isEmpty() ? Optional.empty()
        : Optional.of(new EndpointSecret.Given(secrets));
  }

  /**
   * {@code secrets.sealingKeys}: the keys sealing the secrets kept in the operator state, the
   * first sealing ({@link SealingKeys}).
   */
  private SealingKeys sealingKeys(JsonNode node) {
    Map<String, Secret> keys = new LinkedHashMap<>();
    node.properties().forEach(e -> {
      Secret key = resolved(e.getValue().asText(),
          Problem.join("secrets.sealingKeys", e.getKey()));
      if (key != null) {
        keys.put(e.getKey(), key);
      }
    });
    try {
      return SealingKeys.of(keys);
    } catch (IllegalArgumentException e) {
      problems.add(new Problem("secrets.sealingKeys", e.getMessage()));
      return SealingKeys.NONE;
    }
  }

  /**
   * A secret, or null after recording why not; kept unread for an operator's command that
   * cannot read it ({@link ConfigLoader#loadForOperator}), as a provider's credentials are.
   */
  private Secret resolved(String text, String path) {
    try {
      return Secret.resolve(text, env);
    } catch (IllegalArgumentException e) {
      if (!credentialsNeeded && Secret.isReference(text)) {
        return Secret.unread(text);
      }
      problems.add(new Problem(path, e.getMessage()));
      return null;
    }
  }

  /**
   * A tenant without a tier gets the default tier; with no default tier it stays null here and
   * {@link ConfigChecks} reports it.
   */
  private Map<String, TenantConfig> tenants(JsonNode node, String defaultTier) {
    Map<String, TenantConfig> tenants = new LinkedHashMap<>();
    node.properties().forEach(e -> {
      String path = Problem.join("tenants", e.getKey());
      JsonNode tenant = e.getValue();
      tenants.put(e.getKey(), new TenantConfig(
          text(tenant, "tier", defaultTier),
          quotas(tenant.path("quotas"), Problem.join(path, "quotas")),
          tenant.has("shadow") ? tenant.get("shadow").asBoolean() : ConfigDefaults.SHADOW,
          tenant.has("overall") ? quota(tenant.get("overall"), Problem.join(path, "overall")) : null,
          rules(tenant.path("rules"), Problem.join(path, "rules")),
          endpointsOf(tenant.path("endpoints"), Problem.join(path, "endpoints"))));
    });
    return tenants;
  }

  private Map<String, QuotaRule> rules(JsonNode node, String path) {
    Map<String, QuotaRule> rules = new LinkedHashMap<>();
    node.properties().forEach(e -> rules.put(e.getKey(), new QuotaRule(
        text(e.getValue(), "provider", null),
        text(e.getValue(), "path", null),
        text(e.getValue(), "attribute", null),
        text(e.getValue(), "equals", null),
        quota(e.getValue(), Problem.join(path, e.getKey())))));
    return rules;
  }

  private Map<String, Quota> quotas(JsonNode node, String path) {
    Map<String, Quota> quotas = new LinkedHashMap<>();
    node.properties().forEach(e -> quotas.put(e.getKey(),
        quota(e.getValue(), Problem.join(path, e.getKey()))));
    return quotas;
  }

  private Quota quota(JsonNode node, String path) {
    return new Quota(node.path("capacity").asDouble(),
        rate(node.path("refill").asText(), Problem.join(path, "refill")));
  }

  private URI url(String text, String path) {
    try {
      URI uri = new URI(text);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (uri.getHost() != null && (scheme.equals("http") || scheme.equals("https"))) {
        return uri;
      }
      problems.add(new Problem(path, "expected an absolute http or https URL with a host, got "
          + ConfigSchema.quoted(text)));
    } catch (URISyntaxException e) {
      problems.add(new Problem(path, "expected an absolute http or https URL, got "
          + ConfigSchema.quoted(text) + " (" + e.getReason() + " at index " + e.getIndex() + ")"));
    }
    return URI.create("http://invalid");
  }

  private Rate rate(String text, String path) {
    try {
      return Rate.parse(text);
    } catch (IllegalArgumentException e) {
      problems.add(new Problem(path, "expected a rate above zero like \"50/s\", \"600/m\" or "
          + "\"10/h\", got " + ConfigSchema.quoted(text)));
      return PLACEHOLDER_RATE;
    }
  }

  private Duration duration(JsonNode parent, String field, Duration fallback, String parentPath) {
    JsonNode node = parent.get(field);
    return node == null ? fallback
        : parseDuration(node.asText(), Problem.join(parentPath, field), fallback);
  }

  private Duration parseDuration(String text, String path, Duration placeholder) {
    try {
      return Durations.parse(text);
    } catch (ArithmeticException | IllegalArgumentException e) {
      problems.add(new Problem(path, "is too long to be a duration, got "
          + ConfigSchema.quoted(text)));
      return placeholder;
    }
  }

  private static String text(JsonNode parent, String field, String fallback) {
    JsonNode node = parent.get(field);
    return node == null || node.isNull() ? fallback : node.asText();
  }

  private static int integer(JsonNode parent, String field, int fallback) {
    JsonNode node = parent.get(field);
    return node == null ? fallback : node.intValue();
  }

  private static double number(JsonNode parent, String field, double fallback) {
    JsonNode node = parent.get(field);
    return node == null ? fallback : node.doubleValue();
  }
}
