package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
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
import io.sluice.testkit.RealServers;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The admin API on a real ops server, its pauses in a real redis-server. */
@ExtendWith(RealServers.class)
class AdminApiIT {
  private static final String READ = "read-tok-7f3a-41c9e0";
  private static final String WRITE = "write-tok-9c1e-5d82b3";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> redis;
  private static SluiceConfig config;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void connect(RedisServerProcess shared) {
    client = RedisClient.create(shared.uri());
    redis = client.connect(StringCodec.UTF8);
    config = ConfigLoader.parse("""
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          payments:
            url: http://127.0.0.1:1/
            rate: 10/s
            quotas: { std: { capacity: 10, refill: 1/s } }
        """, Map.of());
  }

  @AfterAll
  static void disconnect() {
    redis.close();
    client.shutdown();
  }

  /** The pauses are global: none may outlive its test, or another's events would be held. */
  @AfterEach
  void removeAll() {
    redis.sync().del(PauseStore.KEY);
  }

  private OpsServer serve(AdminConfig admin) {
    return serve(admin, "127.0.0.1");
  }

  private OpsServer serve(AdminConfig admin, String bind) {
    AdminApi api = new AdminApi(admin, () -> config,
        (provider, tenant) -> JSON.createObjectNode().put("provider", provider.orElse("all")),
        new PauseStore(redis.async()));
    return OpsServer.start(new InetSocketAddress(bind, 0),
        new PrometheusExposition(new MetricRegistry()), () -> null, () -> null, api);
  }

  /** An address of this host other than loopback, if it has one. */
  private static Optional<String> nonLoopback() throws Exception {
    for (var nic : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
      for (var a : java.util.Collections.list(nic.getInetAddresses())) {
        if (!a.isLoopbackAddress() && a instanceof java.net.Inet4Address && nic.isUp()) {
          return Optional.of(a.getHostAddress());
        }
      }
    }
    return Optional.empty();
  }

  @Test
  @DisplayName("a client on another address than loopback is refused, even with the write token, unless allowRemote")
  void remoteRefused() throws Exception {
    Optional<String> address = nonLoopback();
    org.junit.jupiter.api.Assumptions.assumeTrue(address.isPresent(), "no non-loopback address");
    URI status = null;
    try (OpsServer ops = serve(tokens(), "0.0.0.0")) {
      status = URI.create("http://" + address.get() + ":" + ops.port() + "/admin/status");
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(status)
          .header("Authorization", "Bearer " + WRITE).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(403, r.statusCode(), r.body());
    }
    try (OpsServer ops = serve(new AdminConfig(Optional.of(Secret.literal(READ)), Optional.empty(),
        true), "0.0.0.0")) {
      status = URI.create("http://" + address.get() + ":" + ops.port() + "/admin/status");
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(status)
          .header("Authorization", "Bearer " + READ).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), r.body());
    }
  }

  private static AdminConfig tokens() {
    return new AdminConfig(Optional.of(Secret.literal(READ)), Optional.of(Secret.literal(WRITE)),
        false);
  }

  private HttpResponse<String> send(OpsServer ops, String method, String path, String token,
      String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ops.port() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The pauses in Redis, without the cache's own marker ({@code CacheKeeper}'s, not a pause). */
  private static Map<String, String> pausesInRedis() {
    Map<String, String> pauses = new java.util.HashMap<>(redis.sync().hgetall(PauseStore.KEY));
    pauses.remove(PauseStore.MARKER);
    return pauses;
  }

  @Test
  @DisplayName("without a valid token every path is 401, and no token is echoed")
  void refusedWithoutToken() throws Exception {
    try (OpsServer ops = serve(tokens())) {
      for (String token : new String[] {null, "", "read-tok-7f3b-41c9e0", READ + "x", WRITE.substring(1)}) {
        HttpResponse<String> r = send(ops, "GET", "/admin/status", token, null);
        assertEquals(401, r.statusCode(), "token " + token);
        assertEquals("Bearer realm=\"sluice-admin\"", r.headers().firstValue("WWW-Authenticate").orElse(""));
        assertFalse(r.body().contains(READ) || r.body().contains(WRITE), r.body());
      }
      assertEquals(401, send(ops, "POST", "/admin/pause", null, "{\"provider\":\"payments\"}").statusCode());
      assertEquals(401, send(ops, "GET", "/admin/nothing-here", null, null).statusCode());
      assertEquals(Map.of(), pausesInRedis(), "no pause written");
    }
  }

  @Test
  @DisplayName("with no token configured the admin API is off: 401 even with a guessed one")
  void offWithoutConfiguredTokens() throws Exception {
    try (OpsServer ops = serve(AdminConfig.NONE)) {
      HttpResponse<String> r = send(ops, "GET", "/admin/status", "", null);
      assertEquals(401, r.statusCode());
      assertTrue(r.body().contains("admin API is off"), r.body());
    }
  }

  @Test
  @DisplayName("the read token reads the status but may not pause")
  void readToken() throws Exception {
    try (OpsServer ops = serve(tokens())) {
      HttpResponse<String> r = send(ops, "GET", "/admin/status?provider=payments", READ, null);
      assertEquals(200, r.statusCode(), r.body());
      assertEquals("payments", JSON.readTree(r.body()).path("provider").asText());
      assertEquals(400, send(ops, "GET", "/admin/status?provider=nope", READ, null).statusCode());
      HttpResponse<String> pause = send(ops, "POST", "/admin/pause", READ,
          "{\"provider\":\"payments\"}");
      assertEquals(403, pause.statusCode(), pause.body());
      assertEquals(Map.of(), pausesInRedis());
      assertEquals(405, send(ops, "POST", "/admin/status", READ, "{}").statusCode());
    }
  }

  @Test
  @DisplayName("the write token pauses and resumes, by admin-api@<client>, with the reason cleaned")
  void writeToken() throws Exception {
    try (OpsServer ops = serve(tokens())) {
      HttpResponse<String> r = send(ops, "POST", "/admin/pause", WRITE,
          "{\"provider\":\"payments\",\"tenant\":\"acme\",\"reason\":\"bad\\ndeploy\"}");
      assertEquals(200, r.statusCode(), r.body());
      var pause = JSON.readTree(r.body()).path("pause");
      assertEquals("admin-api@127.0.0.1", pause.path("by").asText());
      assertEquals("bad deploy", pause.path("reason").asText());
      assertEquals(java.util.Set.of("payments/acme"), pausesInRedis().keySet());
      HttpResponse<String> resumed = send(ops, "POST", "/admin/resume", WRITE,
          "{\"provider\":\"payments\",\"tenant\":\"acme\"}");
      assertEquals(200, resumed.statusCode(), resumed.body());
      assertTrue(JSON.readTree(resumed.body()).path("resumed").asBoolean());
      assertEquals(Map.of(), pausesInRedis());
      assertEquals(200, send(ops, "GET", "/admin/status", WRITE, null).statusCode(),
          "the write token reads too");
    }
  }

  @Test
  @DisplayName("bad bodies are 400: not JSON, not an object, a number for a name, too long, no scope, an unknown provider")
  void badRequests() throws Exception {
    try (OpsServer ops = serve(tokens())) {
      for (String body : new String[] {"not json", "[1]", "{\"provider\":5}", "{}",
          "{\"provider\":\"nope\"}", "{\"tenant\":\"a/b\"}",
          "{\"tenant\":\"acme\",\"reason\":\"" + "x".repeat(201) + "\"}",
          "{\"tenant\":\"acme\",\"reason\":\"" + "x".repeat(5000) + "\"}"}) {
        HttpResponse<String> r = send(ops, "POST", "/admin/pause", WRITE, body);
        assertEquals(400, r.statusCode(), body + " -> " + r.body());
      }
      assertEquals(Map.of(), pausesInRedis());
    }
  }

  @Test
  @DisplayName("log levels: read with the read token, set with the write token, in effect at once; bad names and levels are 400")
  void loggers() throws Exception {
    String name = "io.sluice.test.adminloggers";
    org.slf4j.Logger logger = org.slf4j.LoggerFactory.getLogger(name);
    assertFalse(logger.isDebugEnabled(), "the tests' logback-test.xml: WARN");
    try (OpsServer ops = serve(tokens())) {
      HttpResponse<String> list = send(ops, "GET", "/admin/loggers", READ, null);
      assertEquals(200, list.statusCode(), list.body());
      assertTrue(JSON.readTree(list.body()).path("loggers").toString()
          .contains("{\"name\":\"ROOT\",\"level\":\"WARN\",\"effective\":\"WARN\"}"), list.body());

      String put = "/admin/loggers/" + name;
      assertEquals(403, send(ops, "PUT", put, READ, "{\"level\":\"DEBUG\"}").statusCode());
      assertFalse(logger.isDebugEnabled());

      HttpResponse<String> set = send(ops, "PUT", put, WRITE, "{\"level\":\"debug\"}");
      assertEquals(200, set.statusCode(), set.body());
      assertEquals("DEBUG", JSON.readTree(set.body()).path("effective").asText(), set.body());
      assertTrue(logger.isDebugEnabled(), "in effect at once");
      HttpResponse<String> one = send(ops, "GET", put, READ, null);
      assertEquals("DEBUG", JSON.readTree(one.body()).path("level").asText(), one.body());

      assertEquals(400, send(ops, "PUT", put, WRITE, "{\"level\":\"LOUD\"}").statusCode());
      assertEquals(400, send(ops, "PUT", put, WRITE, "{\"level\":7}").statusCode());
      assertEquals(400, send(ops, "PUT", "/admin/loggers/" + "a".repeat(201), WRITE,
          "{\"level\":\"INFO\"}").statusCode());
      assertEquals(400, send(ops, "PUT", "/admin/loggers/a%0Ab", WRITE,
          "{\"level\":\"INFO\"}").statusCode());
      assertEquals(405, send(ops, "POST", put, WRITE, "{}").statusCode());
      assertEquals(401, send(ops, "GET", "/admin/loggers", null, null).statusCode());

      HttpResponse<String> inherit = send(ops, "PUT", put, WRITE, "{\"level\":null}");
      assertEquals(200, inherit.statusCode(), inherit.body());
      assertFalse(logger.isDebugEnabled(), "back to its parent's WARN");
    }
  }
}
