package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.sluice.app.ops.OpsServer;
import io.sluice.app.ops.PrometheusExposition;
import io.sluice.config.AdminConfig;
import io.sluice.config.ConfigLoader;
import io.sluice.config.Secret;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.redis.tenants.TenantRegistry;
import io.sluice.testkit.RealServers;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code /admin/tenants} on a real ops server, the registry in a real redis-server: the contract the console codes against. */
@ExtendWith(RealServers.class)
class TenantRoutesIT {
  private static final String READ = "read-tok-5d2a-90e7c4";
  private static final String WRITE = "write-tok-8e4b-13fa66";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> redis;
  private static final SluiceConfig CONFIG = ConfigLoader.parse("""
      tiers: { pro: { weight: 4 }, free: { weight: 1 } }
      providers:
        payments-api:
          url: http://127.0.0.1:1/
          rate: 10/s
          quotas: { pro: { capacity: 10, refill: 1/s }, free: { capacity: 2, refill: 1/s } }
        hooks:
          endpoints: perTenant
          allowedHosts: ["*.customers.example"]
          rate: 2/s
          quotas: { pro: { capacity: 10, refill: 1/s }, free: { capacity: 2, refill: 1/s } }
      tenants:
        initech: { tier: free, endpoints: { hooks: "https://initech.customers.example/file" } }
      """, Map.of());
  private final HttpClient http = HttpClient.newHttpClient();
  private final String acme = "acme-" + UUID.randomUUID().toString().substring(0, 8);
  private OpsServer ops;

  @BeforeAll
  static void connect(RedisServerProcess shared) {
    client = RedisClient.create(shared.uri());
    redis = client.connect(StringCodec.UTF8);
  }

  @AfterAll
  static void disconnect() {
    redis.close();
    client.shutdown();
  }

  @BeforeEach
  void serve() {
    AdminApi api = new AdminApi(new AdminConfig(Optional.of(Secret.literal(READ)),
        Optional.of(Secret.literal(WRITE)), false), () -> CONFIG,
        (provider, tenant) -> JSON.createObjectNode(), new PauseStore(redis.async()),
        new TenantRegistry(redis.async()));
    ops = OpsServer.start(new InetSocketAddress("127.0.0.1", 0),
        new PrometheusExposition(new MetricRegistry()), () -> null, () -> null, api);
  }

  @AfterEach
  void stop() {
    ops.close();
    redis.sync().hdel(TenantRegistry.KEY, acme, "initech");
  }

  private HttpResponse<String> send(String method, String path, String token, String body)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ops.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body))
        .header("Authorization", "Bearer " + token);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonNode ok(HttpResponse<String> r) throws Exception {
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  @Test
  void putGetAuditAndDeleteKeepTheContract() throws Exception {
    assertEquals(404, send("GET", "/admin/tenants/" + acme, READ, null).statusCode(),
        "unknown to both and no defaultTier");

    String body = "{\"tier\":\"pro\",\"quotas\":{\"payments-api\":{\"capacity\":60,\"refill\":\"20/s\"}},"
        + "\"shadow\":false}";
    JsonNode put = ok(send("PUT", "/admin/tenants/" + acme, WRITE, body));
    assertEquals(acme, put.path("tenant").asText());
    assertEquals("registry", put.path("source").asText());
    assertEquals(JSON.readTree("{\"payments-api\":{\"capacity\":60,\"refill\":\"20/s\"}}"),
        put.path("quotas"));
    assertTrue(put.path("updatedBy").asText().startsWith("admin-api@127.0.0.1"));
    assertFalse(put.path("updatedAt").isNull());

    JsonNode got = ok(send("GET", "/admin/tenants/" + acme, READ, null));
    assertEquals(put, got);

    JsonNode audit = ok(send("GET", "/admin/tenants/" + acme + "/audit", READ, null));
    assertEquals(1, audit.path("changes").size());
    assertTrue(audit.path("changes").get(0).path("before").isNull());
    assertEquals("pro", audit.path("changes").get(0).path("after").path("tier").asText());

    assertEquals(JSON.readTree("{\"deleted\":true}"), ok(send("DELETE", "/admin/tenants/" + acme, WRITE, null)));
    assertEquals(404, send("GET", "/admin/tenants/" + acme, READ, null).statusCode());
    assertEquals(404, send("DELETE", "/admin/tenants/" + acme, WRITE, null).statusCode());
  }

  @Test
  void theFilesTenantsShowAsYamlAndListWithTheRegistrys() throws Exception {
    ok(send("PUT", "/admin/tenants/" + acme, WRITE, "{\"tier\":\"free\"}"));
    JsonNode initech = ok(send("GET", "/admin/tenants/initech", READ, null));
    assertEquals("yaml", initech.path("source").asText());
    assertTrue(initech.path("updatedBy").isNull());

    JsonNode list = ok(send("GET", "/admin/tenants?prefix=acme-&limit=5", READ, null));
    assertEquals(acme, list.path("tenants").get(0).path("tenant").asText());
    assertFalse(list.path("truncated").asBoolean());
    JsonNode all = ok(send("GET", "/admin/tenants?limit=1", READ, null));
    assertEquals(1, all.path("tenants").size());
    assertTrue(all.path("truncated").asBoolean());
  }

  @Test
  void endpointsAreWrittenShownAsGivenToTheTokensHoldersAndRefusedNamingTheField() throws Exception {
    String url = "https://acme.customers.example/in?token=s3cret";
    JsonNode put = ok(send("PUT", "/admin/tenants/" + acme, WRITE, "{\"tier\":\"pro\","
        + "\"endpoints\":{\"hooks\":{\"url\":\"" + url + "\",\"rate\":\"5/s\"}}}"));
    JsonNode endpoints = JSON.readTree("{\"hooks\":{\"url\":\"" + url + "\",\"rate\":\"5/s\"}}");
    assertEquals(endpoints, put.path("endpoints"));
    assertEquals(endpoints, ok(send("GET", "/admin/tenants/" + acme, READ, null)).path("endpoints"));
    assertEquals(endpoints, ok(send("GET", "/admin/tenants/" + acme + "/audit", READ, null))
        .path("changes").get(0).path("after").path("endpoints"), "the audit trail has it too");
    assertEquals("https://initech.customers.example/file", ok(send("GET",
        "/admin/tenants/initech", READ, null)).path("fileEndpoints").path("hooks").asText(),
        "the file's endpoints are shown beside the registry's");

    HttpResponse<String> http = send("PUT", "/admin/tenants/" + acme, WRITE, "{\"tier\":\"pro\","
        + "\"endpoints\":{\"hooks\":\"http://acme.customers.example/in?token=s3cret\"}}");
    assertEquals(400, http.statusCode(), http.body());
    assertTrue(JSON.readTree(http.body()).path("error").asText()
        .startsWith("endpoints.hooks.url: expected https"), http.body());
    assertFalse(http.body().contains("s3cret"), "a refusal never shows a URL's query");
    HttpResponse<String> host = send("PUT", "/admin/tenants/" + acme, WRITE, "{\"tier\":\"pro\","
        + "\"endpoints\":{\"payments-api\":\"https://acme.customers.example/in\"}}");
    assertEquals(400, host.statusCode(), host.body());
    assertTrue(JSON.readTree(host.body()).path("error").asText()
        .startsWith("endpoints.payments-api: not a provider with endpoints: perTenant"), host.body());
  }

  @Test
  void writesNeedTheWriteTokenAndBadInputIsA400NamingTheField() throws Exception {
    HttpResponse<String> read = send("PUT", "/admin/tenants/" + acme, READ, "{\"tier\":\"pro\"}");
    assertEquals(403, read.statusCode(), read.body());
    assertEquals(403, send("DELETE", "/admin/tenants/" + acme, READ, null).statusCode());

    HttpResponse<String> tier = send("PUT", "/admin/tenants/" + acme, WRITE, "{\"tier\":\"gold\"}");
    assertEquals(400, tier.statusCode());
    assertTrue(JSON.readTree(tier.body()).path("error").asText().startsWith("tier: "), tier.body());
    HttpResponse<String> refill = send("PUT", "/admin/tenants/" + acme, WRITE,
        "{\"tier\":\"pro\",\"quotas\":{\"payments-api\":{\"capacity\":1,\"refill\":\"1/d\"}}}");
    assertEquals(400, refill.statusCode());
    assertTrue(JSON.readTree(refill.body()).path("error").asText()
        .startsWith("quotas.payments-api.refill: "), refill.body());
    HttpResponse<String> id = send("GET", "/admin/tenants/a%20b", READ, null);
    assertEquals(400, id.statusCode());
    assertTrue(JSON.readTree(id.body()).path("error").asText().startsWith("tenant: "), id.body());
    HttpResponse<String> big = send("PUT", "/admin/tenants/" + acme, WRITE,
        "{\"tier\":\"" + "p".repeat(5_000) + "\"}");
    assertEquals(400, big.statusCode(), "a body over 4 KiB is not read");
    assertFalse(redis.sync().hexists(TenantRegistry.KEY, acme), "nothing was written");
  }
}
