package io.sluice.app.ops;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.sluice.app.ops.PrometheusTextParser.Exposition;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operations endpoint over real HTTP, with real Kafka (the shared in-JVM broker) and real
 * {@code redis-server} processes behind {@code /health}.
 */
@ExtendWith(RealServers.class)
class OpsServerIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration DEADLINE = Duration.ofSeconds(20);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final MetricRegistry registry = new MetricRegistry();
  private final List<AutoCloseable> toClose = new java.util.ArrayList<>();

  @AfterEach
  void closeEverything() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  private <T extends AutoCloseable> T closeLater(T closeable) {
    toClose.add(closeable);
    return closeable;
  }

  private OpsServer start(Health health) {
    return closeLater(OpsServer.start(0, registry, health));
  }

  private HttpResponse<String> get(OpsServer server, String path) throws Exception {
    return send(server, path, "GET");
  }

  private HttpResponse<String> send(OpsServer server, String path, String method) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(10))
        .method(method, HttpRequest.BodyPublishers.noBody())
        .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private RedisReachability redisCheck(RedisServerProcess redis) {
    RedisClient client = RedisClient.create(redis.uri());
    closeLater(client::shutdown);
    StatefulRedisConnection<String, String> connection = closeLater(client.connect());
    return RedisReachability.of(connection.async());
  }

  @Test
  void shouldServeTheRegistryAsValidPrometheusTextOnAFreePort() throws Exception {
    registry.counter(MetricNames.name("sluice_gate_admitted", "provider", "payments-api", "tier", "pro")).inc(5);
    registry.timer(MetricNames.name("sluice_provider_latency_seconds", "provider", "payments-api"))
        .update(Duration.ofMillis(20));
    OpsServer server = start(new Health(List.of(), Map.of()));

    HttpResponse<String> response = get(server, "/metrics");

    assertTrue(server.port() > 0);
    assertEquals(200, response.statusCode());
    assertEquals("text/plain; version=0.0.4; charset=utf-8",
        response.headers().firstValue("Content-Type").orElseThrow());
    ExpositionGrammar.assertEveryLineValid(response.body());
    Exposition scrape = PrometheusTextParser.parse(response.body());
    assertEquals(5, scrape.value("sluice_gate_admitted_total", "provider", "payments-api", "tier", "pro")
        .getAsDouble());
    assertEquals(0.02, scrape.value("sluice_provider_latency_seconds", "provider", "payments-api",
        "quantile", "0.5").getAsDouble(), 1e-9);
  }

  @Test
  void shouldShowMetricsRegisteredAfterItStarted() throws Exception {
    OpsServer server = start(new Health(List.of(), Map.of()));
    registry.counter("late").inc();

    assertEquals(1, PrometheusTextParser.parse(get(server, "/metrics").body()).value("late_total").getAsDouble());
  }

  @Test
  void shouldAnswerUpWithReachableKafkaAndRedisAndARunningRole(KafkaBroker kafka, RedisServerProcess redis)
      throws Exception {
    KafkaReachability kafkaCheck = closeLater(KafkaReachability.of(kafka.bootstrapServers()));
    OpsServer server = start(new Health(List.of(kafkaCheck, redisCheck(redis)),
        Map.of("gate", () -> RoleStatus.healthy("RUNNING"))));

    HttpResponse<String> response = get(server, "/health");

    assertEquals(200, response.statusCode(), response.body());
    assertEquals("application/json", response.headers().firstValue("Content-Type").orElseThrow());
    JsonNode json = JSON.readTree(response.body());
    assertEquals("UP", json.get("status").asText());
    assertTrue(json.get("kafka").get("reachable").asBoolean(), response.body());
    assertTrue(json.get("redis").get("reachable").asBoolean(), response.body());
    assertEquals("RUNNING", json.get("roles").get("gate").asText());
  }

  @Test
  void shouldAnswer503NamingRedisOnceItsRedisHasStopped(KafkaBroker kafka) throws Exception {
    RedisServerProcess ownRedis = closeLater(RedisServerProcess.start()); // never stop the shared one
    KafkaReachability kafkaCheck = closeLater(KafkaReachability.of(kafka.bootstrapServers()));
    OpsServer server = start(new Health(List.of(kafkaCheck, redisCheck(ownRedis)), Map.of()));
    assertEquals(200, get(server, "/health").statusCode(), "up before the stop");

    ownRedis.stop();
    HttpResponse<String> response = pollHealth(server, r -> r.statusCode() == 503);

    JsonNode json = JSON.readTree(response.body());
    assertEquals("DOWN", json.get("status").asText());
    assertEquals("[\"redis\"]", json.get("down").toString());
    assertFalse(json.get("redis").get("reachable").asBoolean());
    assertFalse(json.get("redis").get("detail").asText().isBlank());
    assertTrue(json.get("kafka").get("reachable").asBoolean(), "Kafka is still up: " + response.body());
  }

  @Test
  void shouldAnswer503WhenARoleIsUnhealthy() throws Exception {
    OpsServer server = start(new Health(List.of(), Map.of("gate", () -> RoleStatus.unhealthy("ERROR"))));

    HttpResponse<String> response = get(server, "/health");

    assertEquals(503, response.statusCode());
    assertEquals("[\"gate\"]", JSON.readTree(response.body()).get("down").toString());
  }

  @Test
  void shouldAnswer404ForOtherPaths() throws Exception {
    OpsServer server = start(new Health(List.of(), Map.of()));

    assertEquals(404, get(server, "/").statusCode());
    assertEquals(404, get(server, "/metricsz").statusCode());
    assertEquals(404, get(server, "/health/live").statusCode());
  }

  @Test
  void shouldAnswer405ForMethodsOtherThanGetAndHead() throws Exception {
    OpsServer server = start(new Health(List.of(), Map.of()));

    HttpResponse<String> post = send(server, "/metrics", "POST");

    assertEquals(405, post.statusCode());
    assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElseThrow());
    assertEquals(200, send(server, "/metrics", "HEAD").statusCode());
  }

  @Test
  void shouldAnswer500WhenRenderingFails() throws Exception {
    OpsServer server = closeLater(OpsServer.start(new java.net.InetSocketAddress(0),
        new PrometheusExposition(registry), () -> {
          throw new IllegalStateException("health source broken");
        }));

    HttpResponse<String> response = get(server, "/health");

    assertEquals(500, response.statusCode());
    assertTrue(response.body().contains("health source broken"), response.body());
  }

  @Test
  void shouldFreeItsPortWhenClosed() throws Exception {
    OpsServer server = OpsServer.start(0, registry, new Health(List.of(), Map.of()));
    int port = server.port();
    server.close();

    try (java.net.ServerSocket rebind = new java.net.ServerSocket(port)) {
      assertEquals(port, rebind.getLocalPort());
    }
  }

  private HttpResponse<String> pollHealth(OpsServer server, Predicate<HttpResponse<String>> until) throws Exception {
    return Await.until("/health to change", DEADLINE, () -> {
      try {
        return new Answer(get(server, "/health"));
      } catch (Exception e) {
        throw new AssertionError("GET /health failed", e);
      }
    }, a -> until.test(a.response())).response();
  }

  /** A /health answer, described by its status and body when a wait for it times out. */
  private record Answer(HttpResponse<String> response) {
    @Override
    public String toString() {
      return response.statusCode() + " " + response.body();
    }
  }
}
