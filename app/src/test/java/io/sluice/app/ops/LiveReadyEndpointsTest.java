package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code /live} says whether the process can work (its roles, nothing else), {@code /ready}
 * whether it can work now (dependencies and roles), and {@code /health} stays what it was: the
 * same as {@code /ready}.
 */
class LiveReadyEndpointsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final AtomicReference<RoleStatus> relay = new AtomicReference<>(RoleStatus.healthy("RUNNING"));
  private final HealthCheck redisAway = new HealthCheck() {
    @Override
    public String name() {
      return "redis";
    }

    @Override
    public Result check() {
      return Result.unreachable("Connection refused");
    }
  };
  private OpsServer server;

  @AfterEach
  void stop() {
    server.close();
  }

  private void serve() {
    Map<String, Supplier<RoleStatus>> roles = new LinkedHashMap<>();
    roles.put("relay", relay::get);
    roles.put("gate", () -> RoleStatus.healthy("RUNNING"));
    server = OpsServer.start(0, new MetricRegistry(), new Health(List.of(redisAway), roles));
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  @DisplayName("with Redis away and a role restarting, /ready and /health are 503 and /live is 200")
  void liveWhileNotReady() throws Exception {
    relay.set(RoleStatus.unhealthy("RESTARTING (failure 1 of at most 5 within PT10M)"));
    serve();

    HttpResponse<String> ready = get("/ready");
    assertEquals(503, ready.statusCode(), ready.body());
    assertEquals("[\"redis\",\"relay\"]", JSON.readTree(ready.body()).get("down").toString());
    HttpResponse<String> health = get("/health");
    assertEquals(503, health.statusCode());
    assertEquals(JSON.readTree(ready.body()).get("down"), JSON.readTree(health.body()).get("down"),
        "/health is /ready under its old name");

    HttpResponse<String> live = get("/live");
    assertEquals(200, live.statusCode(), live.body());
    JsonNode json = JSON.readTree(live.body());
    assertEquals("UP", json.get("status").asText());
    assertFalse(json.has("redis"), "no dependency in /live: " + live.body());
    assertEquals(relay.get().state(), json.get("roles").get("relay").asText());
  }

  @Test
  @DisplayName("a role that failed beyond its restarts makes /live 503, naming it")
  void notLiveOnceARoleFailed() throws Exception {
    serve();
    assertEquals(200, get("/live").statusCode());

    relay.set(RoleStatus.failed("FAILED (6 failures within PT10M)"));
    HttpResponse<String> live = get("/live");
    assertEquals(503, live.statusCode());
    assertEquals("[\"relay\"]", JSON.readTree(live.body()).get("down").toString());
  }
}
