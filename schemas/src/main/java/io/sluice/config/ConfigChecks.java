package io.sluice.config;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The rules a JSON Schema cannot state: settings that refer to each other by name, and order.
 *
 * <p>These are the mistakes that would otherwise surface far from their cause: a provider without
 * a quota for some tier would leave that tier's tenants with no bucket (dead-lettered at the gate
 * for no visible reason); a tenant in a missing tier would be an unknown tenant; a ladder out of
 * order would make the delay topic choice meaningless.
 */
final class ConfigChecks {
  /**
   * Bytes of a produce request kept for everything but an inbound value: the record key (a
   * tenant id, at most 128 bytes), the producer's own headers, Sluice's headers (reason, detail,
   * source, ids, times: under 2 KiB) and the record and batch framing (under 100 bytes).
   */
  static final int PAYLOAD_HEADROOM = 65_536;

  /** Headers Sluice or HTTP/1.1 set, as written in the error; compared in lower case. */
  static final List<String> OWNED_HEADER_NAMES = List.of("Idempotency-Key", "Content-Type",
      "Content-Length", "Transfer-Encoding", "Host", "Connection", "Upgrade", "Expect", "TE",
      "Trailer", "Keep-Alive");
  private static final Set<String> OWNED_HEADERS = OWNED_HEADER_NAMES.stream()
      .map(h -> h.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());

  /** Client settings Sluice chooses per client; see {@link KafkaConfig#clientProperties()}. */
  static final Set<String> SLUICE_OWNED_PROPERTIES = Set.of(
      "key.serializer", "value.serializer", "key.deserializer", "value.deserializer",
      "group.id", "group.instance.id", "application.id", "transactional.id",
      "enable.auto.commit", "isolation.level", "processing.guarantee", "enable.idempotence",
      "auto.offset.reset", "default.key.serde", "default.value.serde");

  private final List<Problem> problems = new ArrayList<>();

  List<Problem> check(SluiceConfig config) {
    String tierList = String.join(", ", new TreeSet<>(config.tiers().keySet()));
    String providerList = String.join(", ", new TreeSet<>(config.providers().keySet()));

    if (config.defaultTier() != null && !config.tiers().containsKey(config.defaultTier())) {
      notATier("defaultTier", config.defaultTier(), tierList);
    }
    for (Map.Entry<String, TenantConfig> tenant : config.tenants().entrySet()) {
      String path = Problem.join("tenants", tenant.getKey());
      String tier = tenant.getValue().tier();
      if (tier == null) {
        problems.add(new Problem(Problem.join(path, "tier"),
            "missing, and there is no defaultTier to fall back on"));
      } else if (!config.tiers().containsKey(tier)) {
        notATier(Problem.join(path, "tier"), tier, tierList);
      }
      for (String provider : new TreeSet<>(tenant.getValue().quotas().keySet())) {
        if (!config.providers().containsKey(provider)) {
          problems.add(new Problem(Problem.join(Problem.join(path, "quotas"), provider),
              "\"" + provider + "\" is not a configured provider (providers: " + providerList
                  + ")"));
        }
      }
      checkRules(Problem.join(path, "rules"), tenant.getValue(), config, providerList);
      checkEndpoints(Problem.join(path, "endpoints"), tenant.getValue(), config);
    }
    checkBudgets(config, providerList);
    for (Map.Entry<String, ProviderConfig> provider : config.providers().entrySet()) {
      String path = Problem.join("providers", provider.getKey());
      checkQuotas(Problem.join(path, "quotas"), provider.getValue(), config, tierList);
      positive(Problem.join(path, "timeout"), provider.getValue().timeout());
      checkForwardHeaders(Problem.join(path, "forwardHeaders"), provider.getValue());
      checkRequest(path, provider.getValue());
      checkPerTenant(path, provider.getValue());
      checkIntake(path, provider.getValue().intake(), config.ladder());
    }
    checkKafkaProperties(config.kafka());
    checkMaxPayload(config);
    checkLadder(config.ladder());
    positive("gate.redisTimeout", config.gate().redisTimeout());
    positive("dispatcher.lookahead", config.dispatcher().lookahead());
    positive("dispatcher.backoffBase", config.dispatcher().backoffBase());
    positive("dispatcher.priorityAging", config.dispatcher().priorityAging());
    if (config.dispatcher().backoffCap().compareTo(config.dispatcher().backoffBase()) < 0) {
      problems.add(new Problem("dispatcher.backoffCap", "expected at least dispatcher.backoffBase ("
          + Durations.format(config.dispatcher().backoffBase()) + "), got "
          + Durations.format(config.dispatcher().backoffCap())));
    }
    return problems;
  }

  /** A per-tenant provider's own settings: its host patterns, its cool-offs. */
  private void checkPerTenant(String path, ProviderConfig provider) {
    if (!provider.perTenant()) {
      return;
    }
    ProviderEndpoints endpoints = provider.endpoints();
    for (int i = 0; i < endpoints.allowedHosts().size(); i++) {
      String pattern = endpoints.allowedHosts().get(i);
      if (!EndpointHosts.HOST_PATTERN.matcher(pattern).matches()) {
        problems.add(new Problem(Problem.index(Problem.join(path, "allowedHosts"), i), "expected "
            + "a host like api.example.com, or *.example.com for the hosts below it, got "
            + ConfigSchema.quoted(pattern)));
      }
    }
    positive(Problem.join(path, "disableAfter"), endpoints.disableAfter());
    positive(Problem.join(path, "probeAfter"), endpoints.probeAfter());
  }

  /**
   * A tenant's endpoints: each toward a configured per-tenant provider, by the registry's own
   * rule ({@link EndpointUrls#problem}): https unless {@code allowPlainHttp}, no user information
   * or fragment, a host its {@code allowedHosts} admit, not an internal address written as such
   * unless {@code allowPrivateNetworks}; a name is checked again at every call.
   */
  private void checkEndpoints(String path, TenantConfig tenant, SluiceConfig config) {
    for (String name : new TreeSet<>(tenant.endpoints().keySet())) {
      String at = Problem.join(path, name);
      ProviderConfig provider = config.providers().get(name);
      if (provider == null || !provider.perTenant()) {
        String perTenant = config.providers().entrySet().stream()
            .filter(p -> p.getValue().perTenant()).map(Map.Entry::getKey).sorted()
            .collect(Collectors.joining(", "));
        problems.add(new Problem(at, "\"" + name + "\" is not a provider with endpoints: "
            + "perTenant (those: " + (perTenant.isEmpty() ? "none" : perTenant) + ")"));
        continue;
      }
      URI url = tenant.endpoints().get(name).url();
      if (url.getHost() == null || url.getHost().equals("invalid")) {
        continue; // reported by the binder
      }
      // The registry's rule, the same function (EndpointUrls): the file is checked no less.
      EndpointUrls.problem(name, provider, url).ifPresent(why -> problems.add(new Problem(at, why)));
      TenantEndpoint endpoint = tenant.endpoints().get(name);
      if (endpoint.secret().isEmpty() && !provider.request().signingSecrets().isEmpty()
          && !provider.endpoints().sharedSigningSecret()) {
        // The provider's one secret would sign for every tenant: each receiver could forge calls
        // another accepts (issue 33). The operator chooses: a secret per endpoint, or sharing.
        problems.add(new Problem(Problem.join(at, "secret"), "required: provider \"" + name
            + "\" signs its calls, and an endpoint is signed with its own secret (give this"
            + " endpoint secret: ${file:...}), or with the provider's only where it sets"
            + " sharedSigningSecret: true"));
      }
    }
  }

  /**
   * A forwarded attribute becomes a request header; it may not name one that Sluice sets itself
   * ({@code Idempotency-Key}, {@code Content-Type}), one that HTTP/1.1 owns for framing and the
   * connection (the JDK client refuses several of them and a provider would be confused by the
   * rest), or one of Sluice's internal {@code sluice-*} names. Names are compared ignoring case,
   * as HTTP does. The schema has already required each to be an HTTP token.
   */
  private void checkForwardHeaders(String path, ProviderConfig provider) {
    List<String> headers = provider.forwardHeaders();
    for (int i = 0; i < headers.size(); i++) {
      String name = headers.get(i).toLowerCase(Locale.ROOT);
      if (isOwnedHeader(name)) {
        problems.add(new Problem(Problem.index(path, i), "\"" + headers.get(i) + "\" is a header "
            + "that Sluice or HTTP sets itself (" + String.join(", ", OWNED_HEADER_NAMES)
            + ", Proxy-*, sluice-*, webhook-*); forward the attribute under another name"));
      } else if (isCredentialHeader(name, provider.request().auth())) {
        problems.add(new Problem(Problem.index(path, i), "\"" + headers.get(i) + "\" carries a "
            + "credential, and credentials never travel in events (they would stay in Kafka for "
            + "the topics' retention); set the provider's auth instead"));
      }
    }
  }

  /**
   * The request settings a schema cannot judge: a static header or the auth header may not be
   * one Sluice or HTTP sets itself, nor (for static headers) the credential's header.
   */
  private void checkRequest(String path, ProviderConfig provider) {
    ProviderAuth auth = provider.request().auth();
    for (String header : provider.request().headers().keySet()) {
      String name = header.toLowerCase(Locale.ROOT);
      if (isOwnedHeader(name) || isCredentialHeader(name, auth)) {
        problems.add(new Problem(Problem.join(Problem.join(path, "headers"), header), "\"" + header
            + "\" is set by Sluice, HTTP or the provider's auth (" + String.join(", ",
            OWNED_HEADER_NAMES) + ", Authorization, Proxy-*, sluice-*, webhook-*); use contentType "
            + "or auth for those"));
      }
    }
    if (auth instanceof ProviderAuth.Header h && isOwnedHeader(h.name().toLowerCase(Locale.ROOT))) {
      problems.add(new Problem(Problem.join(path, "auth.header.name"), "\"" + h.name()
          + "\" is a header that Sluice or HTTP sets itself; choose the provider's credential "
          + "header, like X-Api-Key"));
    }
  }

  /** A header Sluice or HTTP sets itself (lower-case name). */
  static boolean isOwnedHeader(String name) {
    return OWNED_HEADERS.contains(name) || name.startsWith("proxy-") || name.startsWith("sluice-")
        || name.startsWith("webhook-");
  }

  /** {@code Authorization}, or the header the provider's auth sends its credential in. */
  static boolean isCredentialHeader(String name, ProviderAuth auth) {
    return name.equals("authorization")
        || auth instanceof ProviderAuth.Header h && h.name().equalsIgnoreCase(name);
  }

  /**
   * Properties that would silently lose to Sluice's own settings, or break what Sluice promises
   * (exactly-once at the gate, commits only after settlement), are refused rather than ignored.
   */
  private void checkKafkaProperties(KafkaConfig kafka) {
    for (String key : new TreeSet<>(kafka.properties().keySet())) {
      String path = Problem.join("kafka.properties", key);
      if (key.equals("bootstrap.servers")) {
        problems.add(new Problem(path, "set kafka.bootstrap instead"));
      } else if (SLUICE_OWNED_PROPERTIES.contains(key)) {
        problems.add(new Problem(path, "Sluice sets " + key + " itself on the clients that use it "
            + "(its guarantees depend on it); remove it"));
      }
    }
    String maxRequest = kafka.properties().get("max.request.size");
    if (maxRequest != null && !maxRequest.trim().matches("[0-9]{1,9}")) {
      problems.add(new Problem("kafka.properties.max.request.size",
          "expected a whole number of bytes, got \"" + maxRequest + "\""));
    }
  }

  /**
   * An inbound value is forwarded, and dead-lettered, whole, with Sluice's headers added, so it
   * must fit a produce request: {@code maxPayloadBytes + PAYLOAD_HEADROOM <= max.request.size}.
   * Otherwise such a record could never be written downstream, and its partition would stall.
   */
  private void checkMaxPayload(SluiceConfig config) {
    int limit = config.kafka().maxRequestSize() - PAYLOAD_HEADROOM;
    if (config.gate().maxPayloadBytes() > limit) {
      problems.add(new Problem("gate.maxPayloadBytes", "must be at most " + limit + " (the "
          + "producers' max.request.size " + config.kafka().maxRequestSize() + " minus "
          + PAYLOAD_HEADROOM + " bytes kept for the key, headers and record overhead), got "
          + config.gate().maxPayloadBytes()));
    }
  }

  /**
   * A per-attribute rule names at least one condition, an attribute with the value it must have,
   * and only configured providers (a rule toward no provider would never match: a typo).
   */
  private void checkRules(String path, TenantConfig tenant, SluiceConfig config, String providerList) {
    for (String name : new TreeSet<>(tenant.rules().keySet())) {
      QuotaRule rule = tenant.rules().get(name);
      String at = Problem.join(path, name);
      if (rule.provider() == null && rule.path() == null && rule.attribute() == null) {
        problems.add(new Problem(at, "matches every event: give a provider, a path or an "
            + "attribute with equals (a budget across all providers is the tenant's overall)"));
      }
      if ((rule.attribute() == null) != (rule.equals() == null)) {
        problems.add(new Problem(Problem.join(at, rule.attribute() == null ? "attribute" : "equals"),
            "attribute and equals go together: give both or neither"));
      }
      if (rule.provider() != null && !config.providers().containsKey(rule.provider())) {
        problems.add(new Problem(Problem.join(at, "provider"), "\"" + rule.provider()
            + "\" is not a configured provider (providers: " + providerList + ")"));
      }
    }
  }

  /**
   * A tier-wide budget names a configured provider, and needs a standalone Redis: it is one bucket
   * shared by every tenant of the tier, so in a Redis Cluster it cannot live in each tenant's slot
   * and could not be charged in the same script as the tenant's own rules (all or none).
   */
  private void checkBudgets(SluiceConfig config, String providerList) {
    for (String tier : new TreeSet<>(config.tiers().keySet())) {
      for (String provider : new TreeSet<>(config.tiers().get(tier).budgets().keySet())) {
        String at = Problem.join(Problem.join(Problem.join("tiers", tier), "budgets"), provider);
        if (!config.providers().containsKey(provider)) {
          problems.add(new Problem(at, "\"" + provider + "\" is not a configured provider "
              + "(providers: " + providerList + ")"));
        } else if (isCluster(config.redis())) {
          problems.add(new Problem(at, "a tier-wide budget is not available with a Redis Cluster "
              + "(redis.uri is a cluster): it is shared by every tenant of the tier, so it cannot "
              + "share a slot with each tenant's rules and be charged with them all or none; use "
              + "tenant quotas, or a standalone Redis"));
        }
      }
    }
  }

  private static boolean isCluster(RedisConfig redis) {
    try {
      return redis.isCluster();
    } catch (IllegalArgumentException e) {
      return false; // reported as redis.uri already
    }
  }

  /** Every tier has a bucket toward every provider, and every bucket belongs to a tier. */
  private void checkQuotas(String path, ProviderConfig provider, SluiceConfig config,
      String tierList) {
    for (String tier : new TreeSet<>(config.tiers().keySet())) {
      if (!provider.quotas().containsKey(tier)) {
        problems.add(new Problem(path, "no quota for tier \"" + tier + "\""));
      }
    }
    for (String tier : new TreeSet<>(provider.quotas().keySet())) {
      if (!config.tiers().containsKey(tier)) {
        notATier(Problem.join(path, tier), tier, tierList);
      }
    }
  }

  /**
   * A dedup window from 10m to 7d (shorter misses a producer's retries, longer is memory held for
   * ids no producer repeats); a maxDelay whose wait costs at most
   * {@link ProviderIntake#MAX_LADDER_RECORDS} delay records with this ladder.
   */
  private void checkIntake(String path, ProviderIntake intake, List<Duration> ladder) {
    Duration window = intake.dedupWindow();
    if (intake.dedups() && (window.compareTo(ProviderIntake.MIN_DEDUP_WINDOW) < 0
        || window.compareTo(ProviderIntake.MAX_DEDUP_WINDOW) > 0)) {
      problems.add(new Problem(Problem.join(path, "dedupWindow"), "expected from 10m to 7d, got "
          + DelayText.format(window)));
    }
    if (ladder.isEmpty() || ladder.stream().anyMatch(step -> step.isZero() || step.isNegative())) {
      return; // checkLadder and the schema say why
    }
    long wait = intake.maxDelay().toMillis();
    Duration longest = ladder.get(ladder.size() - 1);
    long records = wait / longest.toMillis() > ProviderIntake.MAX_LADDER_RECORDS
        ? wait / longest.toMillis() : LadderCost.recordsFor(ladder, wait);
    if (records > ProviderIntake.MAX_LADDER_RECORDS) {
      long step = Math.max(longest.toMillis(), -Math.floorDiv(-wait, ProviderIntake.MAX_LADDER_RECORDS));
      problems.add(new Problem(Problem.join(path, "maxDelay"), DelayText.format(intake.maxDelay())
          + " ahead would cost an event " + records + " delay records with the ladder's longest step, "
          + Durations.format(longest) + " (at most " + ProviderIntake.MAX_LADDER_RECORDS
          + "); add a longer step to ladder (at least " + DelayText.format(Duration.ofMillis(step))
          + ", e.g. 6h: a day is 4 records) or lower maxDelay"));
    }
  }

  /** Strictly increasing, so each step is a distinct topic and a wait maps to one step. */
  private void checkLadder(List<Duration> ladder) {
    for (int i = 0; i < ladder.size(); i++) {
      Duration step = ladder.get(i);
      if (step.isZero()) {
        problems.add(new Problem(Problem.index("ladder", i), "a step must be longer than 0ms"));
      } else if (i > 0 && step.compareTo(ladder.get(i - 1)) <= 0) {
        problems.add(new Problem(Problem.index("ladder", i), "the ladder must be strictly "
            + "increasing, but " + Durations.format(step) + " follows "
            + Durations.format(ladder.get(i - 1))));
      }
    }
  }

  private void positive(String path, Duration duration) {
    if (duration.isZero() || duration.isNegative()) {
      problems.add(new Problem(path, "must be longer than 0ms, got " + Durations.format(duration)));
    }
  }

  private void notATier(String path, String tier, String tierList) {
    problems.add(new Problem(path,
        "\"" + tier + "\" is not a configured tier (tiers: " + tierList + ")"));
  }
}
