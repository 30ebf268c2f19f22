package io.sluice.config;

import static io.sluice.config.ProviderConfigBuilder.providerAt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  /** The smallest valid file: one tier, one provider with its quota. */
  static final String MINIMAL = """
      tiers:
        free: { weight: 1 }
      providers:
        payments-api:
          url: http://localhost:8081/hooks
          rate: 50/s
          quotas:
            free: { capacity: 10, refill: 2/s }
      """;

  /** Three tiers, as in DESIGN.md, to make cross-reference errors possible. */
  private static final String THREE_TIERS = """
      tiers:
        enterprise: { weight: 8 }
        pro: { weight: 4 }
        free: { weight: 1 }
      defaultTier: free
      providers:
        payments-api:
          url: http://localhost:8081/hooks
          rate: 50/s
          quotas:
            enterprise: { capacity: 100, refill: 40/s }
            pro: { capacity: 40, refill: 15/s }
            free: { capacity: 10, refill: 2/s }
      tenants:
        acme: { tier: enterprise }
      """;

  // ---- the example and the defaults

  @Test
  void shouldLoadTheShippedExampleWithEveryValueAsWritten() throws Exception {
    Path example = Path.of(getClass().getResource("/sluice-example.yaml").toURI());

    SluiceConfig config = ConfigLoader.load(example, Map.of());

    assertEquals(new KafkaConfig("localhost:9092", "sluice."), config.kafka());
    assertEquals("redis://localhost:6379", config.redis().uri());
    assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30),
        Duration.ofMinutes(2), Duration.ofMinutes(10)), config.ladder());
    assertEquals(8, config.maxAttempts());
    assertEquals(Duration.ofSeconds(30), config.reservationHorizon());
    assertEquals(Map.of("enterprise", new TierConfig(8), "pro", new TierConfig(4),
        "free", new TierConfig(1)), config.tiers());
    assertEquals("free", config.defaultTier());
    assertEquals(Map.of("payments-api", providerAt("http://localhost:8081/hooks").rate(50)
        .maxInFlight(16).timeout(Duration.ofSeconds(5)).onRedisDown(RedisDownPolicy.LOCAL)
        .forwardHeaders(List.of("X-Request-Id")).maxCost(100).quotas(Map.of(
            "enterprise", new Quota(100, new Rate(40)),
            "pro", new Quota(40, new Rate(15)),
            "free", new Quota(10, new Rate(2)))).build()), config.providers());
    assertEquals(Map.of(
        "acme", new TenantConfig("enterprise", Map.of()),
        "globex", new TenantConfig("pro", Map.of("payments-api", new Quota(60, new Rate(20))))),
        config.tenants());
    assertEquals(8080, config.http().port());
    assertEquals(new GateConfig("sluice-gate", 1, 262_144, Duration.ofSeconds(1), 64,
        Duration.ofMillis(500)), config.gate());
  }

  @Test
  void shouldFillEveryOptionalSettingWithItsDefault() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL, Map.of());

    assertEquals(new KafkaConfig(ConfigDefaults.KAFKA_BOOTSTRAP, ConfigDefaults.TOPIC_PREFIX),
        config.kafka());
    assertEquals(ConfigDefaults.REDIS_URI, config.redis().uri());
    assertEquals(ConfigDefaults.LADDER, config.ladder());
    assertEquals(ConfigDefaults.MAX_ATTEMPTS, config.maxAttempts());
    assertEquals(ConfigDefaults.RESERVATION_HORIZON, config.reservationHorizon());
    assertEquals(null, config.defaultTier());
    assertEquals(Map.of(), config.tenants());
    assertEquals(ConfigDefaults.HTTP_PORT, config.http().port());
    assertEquals(new GateConfig("sluice-gate", 1, 262_144, Duration.ofSeconds(1), 64,
        Duration.ofMillis(500)), config.gate());
    ProviderConfig provider = config.providers().get("payments-api");
    assertEquals(16, provider.maxInFlight());
    assertEquals(Duration.ofSeconds(5), provider.timeout());
    assertEquals(RedisDownPolicy.LOCAL, provider.onRedisDown());
    assertFalse(provider.shadow());
    assertEquals(List.of(), provider.forwardHeaders());
    assertEquals(100, provider.maxCost());
  }

  @Test
  void shouldGiveATierWithoutAWeightTheWeightOne() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL.replace("{ weight: 1 }", "{}"), Map.of());

    assertEquals(new TierConfig(1), config.tiers().get("free"));
  }

  @Test
  void shouldPutATenantWithoutATierInTheDefaultTier() {
    SluiceConfig config = ConfigLoader.parse(THREE_TIERS + "  initech: {}\n", Map.of());

    assertEquals("free", config.tenants().get("initech").tier());
  }

  @Test
  void shouldTreatAKeyWithoutAValueAsAbsentLikeASectionWhoseContentsAreCommentedOut() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL + "tenants:\ndefaultTier:\nkafka:\n  bootstrap:\n",
        Map.of());

    assertEquals(Map.of(), config.tenants());
    assertEquals(null, config.defaultTier());
    assertEquals(ConfigDefaults.KAFKA_BOOTSTRAP, config.kafka().bootstrap());
  }

  // ---- each error names its field

  @Test
  void shouldBindWhatAProvidersAnswersMayDoAndDefaultIt() {
    assertEquals(AnswerBounds.DEFAULT, ConfigLoader.parse(MINIMAL, Map.of()).providers()
        .get("payments-api").answers());
    SluiceConfig config = ConfigLoader.parse(MINIMAL.replace("rate: 50/s",
        "rate: 50/s\n    learn: false\n    learnedFloor: 0.25\n    maxRetryAfter: 30s"), Map.of());
    assertEquals(new AnswerBounds(false, 0.25, Duration.ofSeconds(30)),
        config.providers().get("payments-api").answers());
  }

  @Test
  void shouldRefuseALearnedFloorOfNothing() {
    assertTrue(error(MINIMAL.replace("rate: 50/s", "rate: 50/s\n    learnedFloor: 0"))
        .startsWith("providers.payments-api.learnedFloor: "));
  }

  @Test
  void shouldNameTheProviderRateThatIsNotARate() {
    assertEquals("providers.payments-api.rate: expected a rate like \"50/s\", \"600/m\" or "
        + "\"10/h\", got \"fast\"", error(MINIMAL.replace("rate: 50/s", "rate: fast")));
  }

  @Test
  void shouldNameAnUnknownDefaultTierAndListTheConfiguredTiers() {
    assertEquals("defaultTier: \"gold\" is not a configured tier (tiers: enterprise, free, pro)",
        error(THREE_TIERS.replace("defaultTier: free", "defaultTier: gold")));
  }

  @Test
  void shouldNameTheProviderThatHasNoQuotaForSomeTier() {
    assertEquals("providers.payments-api.quotas: no quota for tier \"free\"",
        error(THREE_TIERS.replace("      free: { capacity: 10, refill: 2/s }\n", "")));
  }

  @Test
  void shouldNameAProviderQuotaForATierThatDoesNotExist() {
    assertEquals("providers.payments-api.quotas.gold: \"gold\" is not a configured tier (tiers: "
        + "enterprise, free, pro)",
        error(THREE_TIERS.replace("      free: { capacity: 10", "      gold: { capacity: 1, refill: 1/s }\n      free: { capacity: 10")));
  }

  @Test
  void shouldNameATenantInATierThatDoesNotExist() {
    assertEquals("tenants.acme.tier: \"platinum\" is not a configured tier (tiers: enterprise, "
        + "free, pro)", error(THREE_TIERS.replace("tier: enterprise", "tier: platinum")));
  }

  @Test
  void shouldNameATenantWithoutATierWhenThereIsNoDefaultTier() {
    assertEquals("tenants.initech.tier: missing, and there is no defaultTier to fall back on",
        error(THREE_TIERS.replace("defaultTier: free\n", "") + "  initech: {}\n"));
  }

  @Test
  void shouldNameATenantQuotaOverrideForAProviderThatDoesNotExist() {
    assertEquals("tenants.acme.quotas.sms-api: \"sms-api\" is not a configured provider "
        + "(providers: payments-api)", error(THREE_TIERS.replace("acme: { tier: enterprise }",
            "acme: { tier: enterprise, quotas: { sms-api: { capacity: 5, refill: 1/s } } }")));
  }

  @Test
  void shouldNameTheLadderStepThatIsNotLongerThanTheOneBefore() {
    assertEquals("ladder[2]: the ladder must be strictly increasing, but 5s follows 30s",
        error(MINIMAL + "ladder: [1s, 30s, 5s]\n"));
  }

  @Test
  void shouldRejectAnEmptyLadder() {
    assertEquals("ladder: must not be empty; expected a list of durations like [1s, 5s, 30s, 2m, "
        + "10m]", error(MINIMAL + "ladder: []\n"));
  }

  @Test
  void shouldNameALadderStepThatIsNotADuration() {
    assertEquals("ladder[1]: expected a duration like \"250ms\", \"5s\", \"2m\" or \"1h\", got "
        + "\"5 seconds\"", error(MINIMAL + "ladder: [1s, 5 seconds]\n"));
  }

  @Test
  void shouldRejectATierWeightOfZero() {
    assertEquals("tiers.free.weight: expected a weight greater than 0, got 0",
        error(MINIMAL.replace("weight: 1", "weight: 0")));
  }

  @Test
  void shouldRejectAProviderNameWithASpace() {
    String errors = error(MINIMAL.replace("payments-api:", "payments api:"));

    assertTrue(errors.contains("providers.payments api: expected a name of 1 to 64 letters, "
        + "digits, '.', '_' or '-', got \"payments api\""), errors);
  }

  @Test
  void shouldRejectAProviderUrlThatIsNotAbsoluteHttp() {
    for (String url : List.of("ftp://example.com/x", "/hooks", "localhost:8081")) {
      assertEquals("providers.payments-api.url: expected an absolute http or https URL like "
          + "\"http://localhost:8081/hooks\", got \"" + url + "\"",
          error(MINIMAL.replace("http://localhost:8081/hooks", url)));
    }
  }

  @Test
  void shouldRejectAProviderUrlThatDoesNotParse() {
    String errors = error(MINIMAL.replace("http://localhost:8081/hooks", "\"http://h/a b\""));

    assertTrue(errors.startsWith("providers.payments-api.url: expected an absolute http or https "
        + "URL, got \"http://h/a b\" (Illegal character in path"), errors);
  }

  @Test
  void shouldRejectAMaxCostOrMaxInFlightBelowOne() {
    assertEquals("providers.payments-api.maxCost: expected a whole number of at least 1, got 0",
        error(MINIMAL.replace("rate: 50/s", "rate: 50/s\n    maxCost: 0")));
    assertEquals("providers.payments-api.maxInFlight: expected a whole number of at least 1, "
        + "got -2", error(MINIMAL.replace("rate: 50/s", "rate: 50/s\n    maxInFlight: -2")));
  }

  @Test
  void shouldRejectARateOfZero() {
    assertEquals("providers.payments-api.quotas.free.refill: expected a rate above zero like "
        + "\"50/s\", \"600/m\" or \"10/h\", got \"0/s\"",
        error(MINIMAL.replace("refill: 2/s", "refill: 0/s")));
  }

  @Test
  void shouldRejectATimeoutOfZero() {
    assertEquals("providers.payments-api.timeout: must be longer than 0ms, got 0ms",
        error(MINIMAL.replace("rate: 50/s", "rate: 50/s\n    timeout: 0s")));
  }

  @Test
  void shouldNameAnUnknownRedisDownPolicyAndListTheKnownOnes() {
    assertEquals("providers.payments-api.onRedisDown: expected one of fail_open, fail_closed, "
        + "local, got \"sometimes\"",
        error(MINIMAL.replace("rate: 50/s", "rate: 50/s\n    onRedisDown: sometimes")));
  }

  @Test
  void shouldNameEachMissingRequiredSetting() {
    assertEquals("providers: missing; expected a mapping of provider names to provider settings\n"
        + "tiers: missing; expected a mapping of tier names to { weight: N }", error("http: {}\n"));
    assertEquals("providers.payments-api.url: missing; expected an absolute http or https URL "
        + "like \"http://localhost:8081/hooks\"",
        error(MINIMAL.replace("    url: http://localhost:8081/hooks\n", "")));
  }

  @Test
  void shouldNameAMisspeltSettingAndListTheKnownOnes() {
    assertEquals("kafka.bootstrp: unknown setting (known here: bootstrap, topicPrefix, properties, hangingTransactions)",
        error(MINIMAL + "kafka: { bootstrp: broker:9092 }\n"));
  }

  @Test
  void shouldTurnTheHangingTransactionSweeperOffOnlyWhenToldTo() {
    assertTrue(ConfigLoader.parse(MINIMAL, Map.of()).kafka().sweepHangingTransactions());
    assertFalse(ConfigLoader.parse(MINIMAL + "kafka: { hangingTransactions: { sweep: false } }\n",
        Map.of()).kafka().sweepHangingTransactions());
    assertTrue(ConfigLoader.parse(MINIMAL + "kafka: { hangingTransactions: { sweep: true } }\n",
        Map.of()).kafka().sweepHangingTransactions());
    assertEquals("kafka.hangingTransactions.sweep: expected true or false, got \"maybe\"",
        error(MINIMAL + "kafka: { hangingTransactions: { sweep: maybe } }\n"));
    assertEquals("kafka.hangingTransactions.swep: unknown setting (known here: sweep)",
        error(MINIMAL + "kafka: { hangingTransactions: { swep: false } }\n"));
  }

  @Test
  void shouldNameAValueOfTheWrongType() {
    assertEquals("maxAttempts: expected a whole number of at least 1, got \"eight\"",
        error(MINIMAL + "maxAttempts: eight\n"));
    assertEquals("providers.payments-api.shadow: expected true or false, got \"maybe\"",
        error(MINIMAL.replace("rate: 50/s", "rate: 50/s\n    shadow: maybe")));
  }

  @Test
  void shouldPutATenantInShadowModeTowardEveryProviderWhenEitherSaysSo() {
    SluiceConfig config = ConfigLoader.parse(THREE_TIERS
        .replace("acme: { tier: enterprise }", "acme: { tier: enterprise, shadow: true }\n  globex: { tier: pro }")
        + "  initech: { tier: pro, shadow: false }\n", Map.of());

    assertTrue(config.tenants().get("acme").shadow());
    assertTrue(config.shadowOf("payments-api", "acme"), "the tenant says so");
    assertFalse(config.shadowOf("payments-api", "globex"), "neither says so");
    assertFalse(config.shadowOf("payments-api", "initech"));
    assertFalse(config.shadowOf("payments-api", "unlisted"), "an unlisted tenant is not in shadow mode");

    SluiceConfig providerShadow = ConfigLoader.parse(THREE_TIERS.replace("rate: 50/s", "rate: 50/s\n    shadow: true")
        + "  initech: { tier: pro, shadow: false }\n", Map.of());
    assertTrue(providerShadow.shadowOf("payments-api", "initech"), "a tenant's false does not take it out of its provider's shadow mode");
    assertTrue(providerShadow.shadowOf("payments-api", "unlisted"));

    assertEquals("tenants.acme.shadow: expected true or false, got \"maybe\"",
        error(THREE_TIERS.replace("acme: { tier: enterprise }", "acme: { tier: enterprise, shadow: maybe }")));
  }

  @Test
  void shouldNameASectionThatIsNotAMapping() {
    assertEquals("kafka: expected a mapping with bootstrap, topicPrefix, properties and hangingTransactions, got \"broker:9092\"",
        error(MINIMAL + "kafka: broker:9092\n"));
  }

  @Test
  void shouldRefuseAShortAdminTokenNamingItsFieldNeverItsValue() {
    // Before (issue 33): a one-character admin token was accepted.
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(MINIMAL
        + "admin: { readToken: \"${env:ADMIN_READ}\", writeToken: \"w3Ak-t0k3n\" }\n",
        Map.of("ADMIN_READ", "R")));

    assertEquals(List.of(
        "admin.readToken: expected at least 16 characters (a random one: openssl rand -hex 16), "
            + "got fewer in ${env:ADMIN_READ}",
        "admin.writeToken: expected at least 16 characters (a random one: openssl rand -hex 16), "
            + "got fewer in (literal)"), e.errors());
    assertFalse(e.getMessage().contains("w3Ak-t0k3n"), e.getMessage());
  }

  @Test
  void shouldAcceptAnAdminTokenOfSixteenCharacters() {
    assertEquals("(literal)", ConfigLoader.parse(MINIMAL + "admin: { writeToken: \""
        + "a".repeat(16) + "\" }\n", Map.of()).admin().writeToken().orElseThrow().reference());
  }

  @Test
  void shouldListEveryErrorOnItsOwnLine() {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(THREE_TIERS
        .replace("defaultTier: free", "defaultTier: gold")
        .replace("tier: enterprise", "tier: platinum")
        .replace("      free: { capacity: 10, refill: 2/s }\n", ""), Map.of()));

    assertEquals(List.of(
        "defaultTier: \"gold\" is not a configured tier (tiers: enterprise, free, pro)",
        "providers.payments-api.quotas: no quota for tier \"free\"",
        "tenants.acme.tier: \"platinum\" is not a configured tier (tiers: enterprise, free, pro)"),
        e.errors());
    assertEquals(String.join("\n", e.errors()), e.getMessage());
  }

  @Test
  void shouldReportValuesASchemaCannotJudgeTogetherWithCrossReferenceErrors() {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(THREE_TIERS
        .replace("defaultTier: free", "defaultTier: gold")
        .replace("rate: 50/s", "rate: 0/s"), Map.of()));

    assertEquals(List.of(
        "defaultTier: \"gold\" is not a configured tier (tiers: enterprise, free, pro)",
        "providers.payments-api.rate: expected a rate above zero like \"50/s\", \"600/m\" or "
            + "\"10/h\", got \"0/s\""), e.errors());
  }

  @Test
  void shouldListSchemaErrorsTogether() {
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.parse(
        MINIMAL.replace("rate: 50/s", "rate: fast\n    maxCost: 0") + "maxAttempts: 0\n",
        Map.of()));

    assertEquals(List.of(
        "maxAttempts: expected a whole number of at least 1, got 0",
        "providers.payments-api.maxCost: expected a whole number of at least 1, got 0",
        "providers.payments-api.rate: expected a rate like \"50/s\", \"600/m\" or \"10/h\", got "
            + "\"fast\""), e.errors());
  }

  @Test
  void shouldNameAMissingFileByItsPath(@TempDir Path dir) {
    Path missing = dir.resolve("nope.yaml");

    ConfigException e = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(missing, Map.of()));

    assertEquals("config file " + missing + " does not exist", e.getMessage());
  }

  @Test
  void shouldNameTheFileAndLineOfAYamlSyntaxError(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("sluice.yaml"), MINIMAL + "kafka: [unclosed\n");

    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(file, Map.of()));

    assertTrue(e.getMessage().startsWith(file + " (line "), e.getMessage());
    assertTrue(e.getMessage().contains("is not valid YAML"), e.getMessage());
  }

  @Test
  void shouldRejectASettingWrittenTwice() {
    String message = error(MINIMAL + "maxAttempts: 3\nmaxAttempts: 4\n");

    assertTrue(message.contains("Duplicate field 'maxAttempts'"), message);
  }

  @Test
  void shouldRejectAFileThatIsNotAMapping() {
    assertEquals("config must be a mapping of settings at the top level, got [\"a\",\"b\"]",
        error("- a\n- b\n"));
  }

  // ---- environment overrides

  @Test
  void shouldOverrideSettingsFromTheEnvironmentMatchingSegmentsLooselyAgainstTheSchema() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL, Map.of(
        "SLUICE_KAFKA__BOOTSTRAP", "broker-1:9092,broker-2:9092",
        "SLUICE_KAFKA__TOPIC_PREFIX", "prod.sluice.",
        "SLUICE_REDIS__URI", "redis-cluster://r1:6379,r2:6379",
        "SLUICE_MAX_ATTEMPTS", "3",
        "SLUICE_GATE__STREAM_THREADS", "2",
        "SLUICE_LADDER", "[1s, 5s]",
        "SLUICE_RESERVATION_HORIZON", "1m"));

    assertEquals(new KafkaConfig("broker-1:9092,broker-2:9092", "prod.sluice."), config.kafka());
    assertTrue(config.redis().isCluster());
    assertEquals(3, config.maxAttempts());
    assertEquals(2, config.gate().streamThreads());
    assertEquals(List.of(Duration.ofSeconds(1), Duration.ofSeconds(5)), config.ladder());
    assertEquals(Duration.ofMinutes(1), config.reservationHorizon());
  }

  @Test
  void shouldMatchAnExistingKeyWithDashesFromAnEnvironmentSegmentWithUnderscores() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL,
        Map.of("SLUICE_PROVIDERS__PAYMENTS_API__RATE", "20/s"));

    assertEquals(new Rate(20), config.providers().get("payments-api").rate());
  }

  @Test
  void shouldCreateEntriesTheFileDoesNotHaveInLowerCase() {
    SluiceConfig config = ConfigLoader.parse(THREE_TIERS, Map.of(
        "SLUICE_TENANTS__INITECH__TIER", "pro",
        "SLUICE_TENANTS__INITECH__QUOTAS__PAYMENTS_API", "{capacity: 5, refill: 1/s}"));

    assertEquals(new TenantConfig("pro", Map.of("payments-api", new Quota(5, new Rate(1)))),
        config.tenants().get("initech"));
  }

  @Test
  void shouldKeepTheTextOfAnOverrideWhereTheSchemaExpectsAString() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL, Map.of("SLUICE_GATE__APPLICATION_ID", "42"));

    assertEquals("42", config.gate().applicationId());
  }

  @Test
  void shouldApplyAWholeSectionBeforeTheSettingsInsideIt() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL, Map.of(
        "SLUICE_KAFKA", "{bootstrap: 'a:1', topicPrefix: 'x.'}",
        "SLUICE_KAFKA__BOOTSTRAP", "b:2"));

    assertEquals(new KafkaConfig("b:2", "x."), config.kafka());
  }

  @Test
  void shouldBuildAWholeConfigurationFromTheEnvironmentAlone() {
    SluiceConfig config = ConfigLoader.parse("", Map.of(
        "SLUICE_TIERS", "{free: {weight: 1}}",
        "SLUICE_PROVIDERS__MAIL", "{url: 'https://mail.example/send', rate: 600/m}",
        "SLUICE_PROVIDERS__MAIL__QUOTAS__FREE", "{capacity: 3, refill: 1/s}"));

    assertEquals(new Rate(10), config.providers().get("mail").rate());
  }

  @Test
  void shouldBlameTheEnvironmentVariableForABadValueItSet() {
    assertEquals("providers.payments-api.rate: expected a rate like \"50/s\", \"600/m\" or "
        + "\"10/h\", got \"fast\" (set by SLUICE_PROVIDERS__PAYMENTS_API__RATE)",
        error(MINIMAL, Map.of("SLUICE_PROVIDERS__PAYMENTS_API__RATE", "fast")));
  }

  @Test
  void shouldBlameTheEnvironmentVariableForAnUnknownSettingItCreated() {
    assertEquals("kafka.bootstraps: unknown setting (known here: bootstrap, topicPrefix, properties, hangingTransactions) (set by "
        + "SLUICE_KAFKA__BOOTSTRAPS)", error(MINIMAL, Map.of("SLUICE_KAFKA__BOOTSTRAPS", "x:1")));
  }

  @Test
  void shouldBlameTheEnvironmentVariableForAnIncompleteProviderItCreated() {
    List<String> lines = error(MINIMAL, Map.of("SLUICE_PROVIDERS__SMS__RATE", "1/s")).lines()
        .toList();

    assertTrue(lines.contains("providers.sms.url: missing; expected an absolute http or https URL "
        + "like \"http://localhost:8081/hooks\" (set by SLUICE_PROVIDERS__SMS__RATE)"),
        lines::toString);
  }

  @Test
  void shouldRefuseToSetAValueInsideAScalar() {
    assertEquals("maxAttempts: is 8, not a mapping, so SLUICE_MAX_ATTEMPTS__LIMIT cannot set a "
        + "setting inside it", error(MINIMAL + "maxAttempts: 8\n",
            Map.of("SLUICE_MAX_ATTEMPTS__LIMIT", "1")));
  }

  @Test
  void shouldNameAnOverrideThatIsNotValidYaml() {
    String message = error(MINIMAL, Map.of("SLUICE_LADDER", "[1s, 5s"));

    assertTrue(message.startsWith("ladder: SLUICE_LADDER is not a valid YAML value: "), message);
  }

  @Test
  void shouldIgnoreVariablesThatAreNotSettingsAndThoseWithoutThePrefix() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL, Map.of(
        "SLUICE_CONFIG", "/etc/sluice.yaml", "PATH", "/usr/bin", "KAFKA__BOOTSTRAP", "x:1",
        "SLUICE_REDIS_SERVER", "bundled", "SLUICE_REQUIRE_CHROMIUM", "1", "SLUICE_TEST_KAFKA", "embedded"));

    assertEquals(ConfigDefaults.KAFKA_BOOTSTRAP, config.kafka().bootstrap());
  }

  @Test
  void shouldLookUpTenantsAndQuotasThroughTheLoadedConfig() {
    SluiceConfig config = ConfigLoader.parse(THREE_TIERS, Map.of());

    assertEquals(Optional.of("enterprise"), config.tierOf("acme"));
    assertEquals(Optional.of("free"), config.tierOf("somebody-else"));
    assertEquals(Optional.of(new Quota(100, new Rate(40))),
        config.quotaOf("payments-api", "acme"));
  }

  // ---- security settings: Kafka client properties, Redis credentials, the ops bind address

  private static final String PASSWORD = "Zq8-s3cret-Pw";

  @Test
  void shouldPassKafkaClientPropertiesThroughAsTextWithTheBootstrapServers() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL + """
        kafka:
          bootstrap: b1:9093
          properties:
            security.protocol: SASL_SSL
            sasl.mechanism: SCRAM-SHA-512
            ssl.truststore.location: /etc/sluice/truststore.jks
            request.timeout.ms: 30000
        """, Map.of());

    assertEquals(Map.of("bootstrap.servers", "b1:9093", "security.protocol", "SASL_SSL",
        "sasl.mechanism", "SCRAM-SHA-512",
        "ssl.truststore.location", "/etc/sluice/truststore.jks",
        "request.timeout.ms", "30000"), config.kafka().clientProperties());
  }

  @Test
  void shouldSetDottedKafkaPropertiesFromTheEnvironment() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL + """
        kafka:
          properties:
            sasl.mechanism: PLAIN
        """, Map.of(
        "SLUICE_KAFKA__PROPERTIES__SECURITY_PROTOCOL", "SASL_SSL",
        "SLUICE_KAFKA__PROPERTIES__SASL_MECHANISM", "SCRAM-SHA-256",
        "SLUICE_KAFKA__PROPERTIES__SASL_JAAS_CONFIG",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" "
            + "password=\"" + PASSWORD + "\";",
        "SLUICE_KAFKA__PROPERTIES__LINGER_MS", "007"));

    assertEquals("SASL_SSL", config.kafka().properties().get("security.protocol"));
    assertEquals("SCRAM-SHA-256", config.kafka().properties().get("sasl.mechanism"));
    assertTrue(config.kafka().properties().get("sasl.jaas.config").contains(PASSWORD));
    assertEquals("007", config.kafka().properties().get("linger.ms"));
    assertEquals(4, config.kafka().properties().size(), config.kafka().properties().toString());
  }

  @Test
  void shouldRefuseKafkaPropertiesThatSluiceSetsItself() {
    String error = error(MINIMAL + """
        kafka:
          properties:
            bootstrap.servers: x:9092
            group.id: mine
            isolation.level: read_uncommitted
        """);

    assertTrue(error.contains("kafka.properties.bootstrap.servers: set kafka.bootstrap"), error);
    assertTrue(error.contains("kafka.properties.group.id: Sluice sets group.id"), error);
    assertTrue(error.contains("kafka.properties.isolation.level: Sluice sets"), error);
  }

  @Test
  void shouldNeverShowASecretKafkaPropertyOrRedisPasswordInAnError() {
    String yaml = MINIMAL + """
        kafka:
          properties:
            sasl.jaas.config: [ "password=%s" ]
            ssl.keystore.password: %s
        redis:
          uri: redis://sluice:%s@localhost:99999
        maxAttempts: 0
        """.formatted(PASSWORD, PASSWORD, PASSWORD);

    String error = error(yaml);

    assertTrue(error.contains("kafka.properties.sasl.jaas.config"), error);
    assertTrue(error.contains("maxAttempts"), error);
    assertFalse(error.contains(PASSWORD), error);
  }

  @Test
  void shouldNameABadRedisUriWithItsUserInfoMasked() {
    String error = error(MINIMAL + """
        redis:
          uri: redis://sluice:%s@localhost:99999
        """.formatted(PASSWORD));

    assertTrue(error.contains("redis.uri: expected a port from 1 to 65535"), error);
    assertTrue(error.contains("redis://***@localhost:99999"), error);
    assertFalse(error.contains(PASSWORD), error);
  }

  @Test
  void shouldMaskTheRedisUriInASchemaError() {
    String error = error(MINIMAL + """
        redis:
          uri: http://:%s@localhost:6379
        """.formatted(PASSWORD));

    assertTrue(error.contains("redis.uri: expected a Redis URI"), error);
    assertFalse(error.contains(PASSWORD), error);
  }

  @Test
  void shouldMaskAPasswordQuotedByAYamlSyntaxError() {
    String error = error(MINIMAL + """
        redis: { uri: "redis://:%s@localhost:6379 }
        """.formatted(PASSWORD));

    assertTrue(error.contains("is not valid YAML"), error);
    assertFalse(error.contains(PASSWORD), error);
  }

  @Test
  void shouldNotShowTheRedisUriOrKafkaPropertiesInTheConfigsText() {
    SluiceConfig config = ConfigLoader.parse(MINIMAL + """
        kafka:
          properties: { sasl.jaas.config: 'x password="%s";', security.protocol: SASL_SSL }
        redis:
          uri: rediss://sluice:%s@localhost:6380
        """.formatted(PASSWORD, PASSWORD), Map.of());

    assertFalse(config.toString().contains(PASSWORD), config.toString());
    assertTrue(config.toString().contains("rediss://***@localhost:6380"), config.toString());
    assertTrue(config.toString().contains("security.protocol=SASL_SSL"), config.toString());
  }

  @Test
  void shouldNeverShowAPasswordSetFromTheEnvironment() {
    String badPort = error(MINIMAL, Map.of("SLUICE_REDIS__URI",
        "redis://sluice:" + PASSWORD + "@localhost:99999"));
    String notYaml = error(MINIMAL, Map.of("SLUICE_REDIS",
        "{ uri: \"redis://:" + PASSWORD + "@localhost:6379 }"));
    String insideAScalar = error(MINIMAL, Map.of(
        "SLUICE_REDIS__URI", "redis://:" + PASSWORD + "@localhost:6379",
        "SLUICE_REDIS__URI__HOST", "x"));
    String jaas = error(MINIMAL, Map.of("SLUICE_KAFKA__PROPERTIES",
        "{ sasl.jaas.config: [\"password=" + PASSWORD + "\"] }"));

    assertTrue(badPort.contains("redis.uri: ") && badPort.contains("SLUICE_REDIS__URI"), badPort);
    assertTrue(notYaml.contains("SLUICE_REDIS is not a valid YAML value"), notYaml);
    assertTrue(insideAScalar.contains("redis.uri: is \"redis://***@localhost:6379\""),
        insideAScalar);
    assertTrue(jaas.contains("kafka.properties.sasl.jaas.config"), jaas);
    for (String error : List.of(badPort, notYaml, insideAScalar, jaas)) {
      assertFalse(error.contains(PASSWORD), error);
    }
  }

  @Test
  void shouldBindTheOpsServerToLoopbackUnlessToldOtherwise() {
    assertEquals("127.0.0.1", ConfigLoader.parse(MINIMAL, Map.of()).http().bind());
    assertEquals("0.0.0.0", ConfigLoader.parse(MINIMAL, Map.of("SLUICE_HTTP__BIND", "0.0.0.0"))
        .http().bind());
    assertTrue(error(MINIMAL + "http: { bind: \"0.0.0.0 ; rm\" }\n")
        .startsWith("http.bind: expected an IP address or host name"));
  }

  @Test
  void shouldRefuseToForwardHeadersThatSluiceOrHttpOwn() {
    String error = error(MINIMAL.replace("rate: 50/s", """
        rate: 50/s
            forwardHeaders: [X-Request-Id, idempotency-key, Content-Type, Transfer-Encoding,
              Proxy-Authorization, Sluice-Attempt, Host, X-Trace]"""));

    for (int i : new int[] {1, 2, 3, 4, 5, 6}) {
      assertTrue(error.contains("providers.payments-api.forwardHeaders[" + i + "]: \""), error);
    }
    assertFalse(error.contains("forwardHeaders[0]"), error);
    assertFalse(error.contains("forwardHeaders[7]"), error);
  }

  @Test
  void shouldRefuseAForwardedHeaderNameThatIsNotAnHttpToken() {
    String error = error(MINIMAL.replace("rate: 50/s", "rate: 50/s\n    forwardHeaders: [\"X Id\"]"));

    assertTrue(error.startsWith("providers.payments-api.forwardHeaders[0]: expected an HTTP header"),
        error);
  }

  @Test
  void shouldBoundMaxPayloadBytesByTheProducersMaxRequestSize() {
    String error = error(MINIMAL + "gate: { maxPayloadBytes: 983041 }\n");
    assertEquals("gate.maxPayloadBytes: must be at most 983040 (the producers' max.request.size "
        + "1048576 minus 65536 bytes kept for the key, headers and record overhead), got 983041",
        error);

    assertEquals(983_040, ConfigLoader.parse(MINIMAL + "gate: { maxPayloadBytes: 983040 }\n",
        Map.of()).gate().maxPayloadBytes());
    assertEquals(2_000_000, ConfigLoader.parse(MINIMAL + """
        gate: { maxPayloadBytes: 2000000 }
        kafka: { properties: { max.request.size: 2097152 } }
        """, Map.of()).gate().maxPayloadBytes());
  }

  @Test
  void shouldReadThePriorityAgingAndRefuseNone() {
    assertEquals(Duration.ofSeconds(30), ConfigLoader.parse(MINIMAL, Map.of()).dispatcher().priorityAging());
    assertEquals(Duration.ofSeconds(10), ConfigLoader.parse(MINIMAL + "dispatcher: { priorityAging: 10s }\n",
        Map.of()).dispatcher().priorityAging());
    String zero = error(MINIMAL + "dispatcher: { priorityAging: 0s }\n");
    assertTrue(zero.contains("dispatcher.priorityAging"), zero);
  }

  private static String error(String yaml) {
    return error(yaml, Map.of());
  }

  private static String error(String yaml, Map<String, String> env) {
    return assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, env)).getMessage();
  }
}
