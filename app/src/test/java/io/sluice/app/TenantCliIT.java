package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.testkit.RealServers;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** {@code sluice tenants ...} against a real redis-server (no Kafka needed). */
@ExtendWith(RealServers.class)
class TenantCliIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> redis;
  private static String redisUri;
  @TempDir Path dir;
  private AppConfigFile config;
  /** Tenant ids of this test only: the registry is shared by every test of the run. */
  private final String acme = "acme-" + UUID.randomUUID().toString().substring(0, 8);
  private final String listed = "listed-" + UUID.randomUUID().toString().substring(0, 8);

  @BeforeAll
  static void connect(RedisServerProcess shared) {
    redisUri = shared.uri();
    client = RedisClient.create(redisUri);
    redis = client.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void disconnect() {
    redis.close();
    client.shutdown();
  }

  @BeforeEach
  void writeConfig(KafkaBroker kafka) {
    // A change is written to the operator topic first, then to Redis: the broker is needed.
    config = AppConfigFile.write(dir, kafka.bootstrapServers(), redisUri, URI.create("http://127.0.0.1:1/"),
        Map.of(listed, "enterprise"));
    kafka.createTopics(Map.of(config.prefix() + "operator", 1));
  }

  @AfterEach
  void removeRecords() {
    redis.sync().hdel("sluice:v1:{tenants}", acme, listed);
  }

  private CliRun sluice(String... args) {
    String[] all = new String[args.length + 2];
    System.arraycopy(args, 0, all, 0, args.length);
    all[args.length] = "--config";
    all[args.length + 1] = config.file().toString();
    return CliRun.of(all);
  }

  private JsonNode json(CliRun run) throws Exception {
    assertEquals(0, run.exitCode(), run.output());
    return JSON.readTree(run.out());
  }

  @Test
  void setGetAuditAndDeleteATenant() throws Exception {
    String p = config.provider();
    assertEquals("default", json(sluice("tenants", "get", acme, "--json")).path("source").asText());

    JsonNode set = json(sluice("tenants", "set", acme, "--tier", "pro", "--quota", p + "=60,20/s",
        "--json"));
    assertEquals("registry", set.path("source").asText());
    assertEquals("pro", set.path("tier").asText());
    assertEquals(60, set.path("quotas").path(p).path("capacity").asInt());
    assertEquals("20/s", set.path("quotas").path(p).path("refill").asText());

    CliRun shadow = sluice("tenants", "set", acme, "--shadow", "true");
    assertEquals(0, shadow.exitCode(), shadow.output());
    JsonNode got = json(sluice("tenants", "get", acme, "--json"));
    assertTrue(got.path("shadow").asBoolean());
    assertEquals("pro", got.path("tier").asText(), "what is not given keeps its value");
    assertEquals("20/s", got.path("quotas").path(p).path("refill").asText());

    JsonNode audit = json(sluice("tenants", "audit", acme, "--json"));
    assertEquals(2, audit.path("changes").size());
    assertTrue(audit.path("changes").get(0).path("after").path("shadow").asBoolean(), "newest first");
    assertTrue(audit.path("changes").get(1).path("before").isNull(), "the first set had no before");

    CliRun deleted = sluice("tenants", "delete", acme);
    assertEquals(0, deleted.exitCode(), deleted.output());
    assertTrue(deleted.out().contains("the default tier") || deleted.out().contains("(default)"),
        deleted.output());
    assertEquals(1, sluice("tenants", "delete", acme).exitCode(), "nothing left to delete");
    assertEquals("default", json(sluice("tenants", "get", acme, "--json")).path("source").asText());
  }

  @Test
  void aRecordOverridesTheFileAndADeleteHandsTheTenantBack() throws Exception {
    assertEquals("yaml", json(sluice("tenants", "get", listed, "--json")).path("source").asText());
    json(sluice("tenants", "set", listed, "--tier", "free", "--json"));
    JsonNode list = json(sluice("tenants", "list", "--prefix", "listed-", "--json"));
    assertEquals(List.of(listed), List.of(list.path("tenants").get(0).path("tenant").asText()));
    assertEquals("free", list.path("tenants").get(0).path("tier").asText());

    assertEquals(0, sluice("tenants", "delete", listed).exitCode());
    JsonNode back = json(sluice("tenants", "get", listed, "--json"));
    assertEquals("yaml", back.path("source").asText());
    assertEquals("enterprise", back.path("tier").asText());
  }

  @Test
  void anEndpointIsSetChangedAndRemovedAndABadOneIsRefusedWithoutItsQuery() throws Exception {
    String text = java.nio.file.Files.readString(config.file());
    java.nio.file.Files.writeString(config.file(), text.replace("providers:\n", """
        providers:
          hooks:
            endpoints: perTenant
            allowedHosts: ["*.customers.example"]
            rate: 2/s
            quotas: { free: { capacity: 2, refill: 1/s }, pro: { capacity: 2, refill: 1/s },
                      enterprise: { capacity: 2, refill: 1/s } }
        """));
    String url = "https://acme.customers.example/in?token=s3cret";

    JsonNode set = json(sluice("tenants", "set", acme, "--endpoint", "hooks=" + url + ",rate=5/s",
        "--json"));
    assertEquals(url, set.path("endpoints").path("hooks").path("url").asText());
    assertEquals("5/s", set.path("endpoints").path("hooks").path("rate").asText());
    CliRun get = sluice("tenants", "get", acme);
    assertTrue(get.out().contains("endpoints hooks=" + url + ",rate=5/s"), get.output());

    CliRun http = sluice("tenants", "set", acme, "--endpoint",
        "hooks=http://acme.customers.example/in?token=s3cret");
    assertEquals(2, http.exitCode(), http.output());
    assertTrue(http.err().startsWith("endpoints.hooks.url: expected https"), http.output());
    assertFalse(http.output().contains("s3cret"), http.output());

    json(sluice("tenants", "set", acme, "--remove-endpoint", "hooks", "--json"));
    assertTrue(json(sluice("tenants", "get", acme, "--json")).path("endpoints").isEmpty());
    CliRun again = sluice("tenants", "set", acme, "--remove-endpoint", "hooks");
    assertEquals(2, again.exitCode(), again.output());
    assertTrue(again.err().startsWith("endpoints.hooks: the tenant has no endpoint"), again.output());
  }

  @Test
  void anOverallBudgetAndRulesAreSetAndRemoved() throws Exception {
    String p = config.provider();
    JsonNode set = json(sluice("tenants", "set", acme, "--overall", "100,50/s", "--rule",
        "refunds=5,10/h,provider=" + p + ",path=refunds", "--json"));
    assertEquals(100, set.path("overall").path("capacity").asInt());
    assertEquals(10.0 / 3600, io.sluice.config.Rate.parse(set.path("rules").path("refunds")
        .path("refill").asText()).perSecond(), 1e-12, "written per second");
    assertEquals("refunds", set.path("rules").path("refunds").path("path").asText());
    CliRun get = sluice("tenants", "get", acme);
    assertTrue(get.out().contains("overall 100,50/s, rules refunds=5,"), get.output());

    JsonNode removed = json(sluice("tenants", "set", acme, "--overall", "none", "--remove-rule",
        "refunds", "--json"));
    assertTrue(removed.path("overall").isNull());
    assertTrue(removed.path("rules").isEmpty());
    CliRun bad = sluice("tenants", "set", acme, "--rule", "all=5,1/s");
    assertEquals(2, bad.exitCode(), bad.output());
    assertTrue(bad.err().startsWith("rules.all: matches every event"), bad.output());
  }

  @Test
  void badInputIsRefusedNamingTheFieldAndNothingIsWritten() {
    String p = config.provider();
    CliRun tier = sluice("tenants", "set", acme, "--tier", "gold");
    assertEquals(2, tier.exitCode(), tier.output());
    assertTrue(tier.err().contains("tier: \"gold\" is not a configured tier"), tier.output());

    CliRun quota = sluice("tenants", "set", acme, "--tier", "pro", "--quota", p + "=60,fast");
    assertEquals(2, quota.exitCode(), quota.output());
    assertTrue(quota.err().contains("quotas." + p + ".refill: "), quota.output());

    CliRun id = sluice("tenants", "get", "acme corp");
    assertEquals(2, id.exitCode(), id.output());
    assertTrue(id.err().startsWith("tenant: "), id.output());

    assertEquals(false, redis.sync().hexists("sluice:v1:{tenants}", acme));
  }
}
