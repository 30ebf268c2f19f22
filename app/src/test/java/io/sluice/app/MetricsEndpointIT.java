package io.sluice.app;

import io.sluice.testkit.Await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.app.ops.PrometheusTextParser;
import io.sluice.app.ops.PrometheusTextParser.Exposition;
import io.sluice.app.ops.PrometheusTextParser.Family;
import io.sluice.app.ops.PrometheusTextParser.Sample;
import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.io.BufferedReader;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} and {@code /health} of a running application (every role, on the shared
 * broker and Redis), scraped over HTTP after events of three tenants in three tiers went through.
 * The exposition must parse strictly, carry provider and tier labels, and never a tenant.
 */
@ExtendWith(RealServers.class)
class MetricsEndpointIT {
  private static final int EVENTS = 30;
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir
  static Path dir;

  private static MockProvider mock;
  private static SluiceApp app;
  private static String provider;
  private static List<String> tenantIds;
  private static String metricsText;
  private static SluiceConfig loaded;
  private static Exposition metrics;

  @BeforeAll
  static void runEventsThrough(KafkaBroker kafka, RedisServerProcess redis) throws Exception {
    mock = MockProvider.start(10_000, 100, Duration.ZERO);
    // Distinctive tenant ids, so finding one anywhere in the exposition cannot be a coincidence.
    String unique = UUID.randomUUID().toString().substring(0, 8);
    tenantIds = List.of("acme" + unique, "globex" + unique, "initech" + unique);
    AppConfigFile file = AppConfigFile.write(dir, kafka.bootstrapServers(), redis.uri(),
        mock.url(), Map.of(tenantIds.get(0), "enterprise", tenantIds.get(1), "pro"));
    provider = file.provider();
    SluiceConfig config = file.load();
    loaded = config;
    try (TopicAdmin admin = new TopicAdmin(config)) {
      admin.create(2, (short) 1);
    }
    app = SluiceApp.start(config, EnumSet.allOf(SluiceApp.Role.class), null,
        new MetricRegistry(), 0);

    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < EVENTS; i++) {
      lines.append(file.event("m-" + i, tenantIds.get(i % 3))).append('\n');
    }
    Produce.lines(kafka.bootstrapServers(),
        new Topics(config.kafka().topicPrefix(), config.ladder()),
        new BufferedReader(new StringReader(lines.toString())));
    Await.until(EVENTS + " deliveries", Duration.ofSeconds(45),
        () -> app.metrics().sum("sluice_dispatch_delivered"), n -> n >= EVENTS);

    HttpResponse<String> scrape = get("/metrics");
    assertEquals(200, scrape.statusCode(), scrape.body());
    metricsText = scrape.body();
    metrics = PrometheusTextParser.parse(metricsText);
  }

  @AfterAll
  static void stop() {
    if (app != null) {
      app.close();
    }
    if (mock != null) {
      mock.close();
    }
  }

  @Test
  @DisplayName("admissions, calls and deliveries are counters by provider and every tier")
  void countersByProviderAndTier() {
    for (String counter : List.of("sluice_gate_admitted_total", "sluice_dispatch_calls_total",
        "sluice_dispatch_delivered_total")) {
      Family family = metrics.family(counter).orElseThrow(
          () -> new AssertionError("no family " + counter + " in\n" + metricsText));
      assertEquals("counter", family.type(), counter);
      double total = 0;
      for (String tier : List.of("enterprise", "pro", "free")) {
        double v = metrics.value(counter, "provider", provider, "tier", tier).orElseThrow(
            () -> new AssertionError("no " + counter + " for tier " + tier + ":\n"
                + family.samples()));
        assertTrue(v > 0, counter + " for tier " + tier + " is " + v);
        total += v;
      }
      assertTrue(total >= EVENTS, counter + " adds up to " + total);
    }
  }

  @Test
  @DisplayName("provider latency is a summary with quantiles and a count of every call")
  void providerLatencySummary() {
    String name = "sluice_dispatch_provider_latency_seconds";
    Family family = metrics.family(name).orElseThrow(
        () -> new AssertionError("no family " + name + " in\n" + metricsText));
    assertEquals("summary", family.type());
    assertTrue(family.samples().stream().anyMatch(s -> s.name().equals(name)
        && "0.99".equals(s.labels().get("quantile"))), family.samples().toString());
    double count = metrics.value(name + "_count", "provider", provider).orElseThrow();
    assertTrue(count >= EVENTS, "latency count " + count);
  }

  @Test
  @DisplayName("each role's Redis circuit is a gauge, 0 while closed, and the lane gauges are there")
  void circuitAndLaneGauges() {
    for (String role : List.of("gate", "dispatcher")) {
      assertEquals(0, metrics.value("sluice_redis_circuit_open", "role", role).orElseThrow(
          () -> new AssertionError("no circuit gauge for " + role + " in\n" + metricsText)));
    }
    assertTrue(metrics.value("sluice_dispatch_configured_rate", "provider", provider).orElseThrow() > 0);
    assertTrue(metrics.value("sluice_dispatch_buffered", "provider", provider).isPresent(), metricsText);
  }

  @Test
  @DisplayName("the consumer lag of every Sluice group on every topic it reads is a gauge; nothing is paused")
  void consumerLagAndPauses() {
    Topics topics = new Topics(loaded.kafka().topicPrefix(), loaded.ladder());
    Map<String, String> read = Map.of(loaded.dispatcher().groupId(), topics.ready(),
        loaded.gate().applicationId(), topics.inbound(),
        loaded.kafka().topicPrefix() + "relay", topics.delays().get(0));
    read.forEach((group, topic) -> {
      double lag = metrics.value("sluice_consumer_lag", "group", group, "topic", topic).orElseThrow(
          () -> new AssertionError("no lag of " + group + " on " + topic + " in\n" + metricsText));
      assertTrue(lag >= 0, group + " on " + topic + ": " + lag);
    });
    assertEquals(0, metrics.value("sluice_dispatch_paused", "provider", provider).orElseThrow());
  }

  @Test
  @DisplayName("no label is named tenant and no tenant id appears anywhere in /metrics")
  void noTenantAnywhere() {
    List<String> tenantLabels = new ArrayList<>();
    for (Family f : metrics.families()) {
      for (Sample s : f.samples()) {
        s.labels().keySet().stream().filter(l -> l.toLowerCase(Locale.ROOT).contains("tenant"))
            .forEach(l -> tenantLabels.add(s.name() + " " + l));
      }
    }
    assertTrue(tenantLabels.isEmpty(), "tenant labels: " + tenantLabels);
    for (String tenant : tenantIds) {
      assertFalse(metricsText.contains(tenant), "tenant id " + tenant + " is in /metrics");
    }
  }

  @Test
  @DisplayName("/health answers 200 UP with the gate, relay and dispatcher roles")
  void healthIsUpWithEveryRole() throws Exception {
    HttpResponse<String> health = get("/health");

    assertEquals(200, health.statusCode(), health.body());
    JsonNode body = new ObjectMapper().readTree(health.body());
    assertEquals("UP", body.path("status").asText(), health.body());
    for (String role : List.of("gate", "relay", "dispatcher")) {
      assertTrue(body.path("roles").has(role), "no role " + role + " in " + health.body());
    }
    for (String circuit : List.of("gateRedisCircuit", "dispatcherRedisCircuit")) {
      assertTrue(body.path(circuit).path("reachable").asBoolean(), "circuit closed: " + health.body());
    }
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + app.httpPort() + path))
            .timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
