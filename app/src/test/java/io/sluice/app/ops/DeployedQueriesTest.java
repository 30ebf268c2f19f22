package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.sluice.app.SluiceMetrics;
import io.sluice.app.ops.PrometheusTextParser.Family;
import io.sluice.app.ops.PrometheusTextParser.Sample;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.redis.RedisCircuit;
import io.sluice.config.RedisDownPolicy;
import io.sluice.schemas.event.Reason;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard and the Prometheus alert rules in {@code deploy/} read only metrics that
 * {@code /metrics} has. The exposition is the application's own: {@link SluiceMetrics} told of
 * one of every event a role reports (so every family it can create exists), its lane and circuit
 * gauges registered as the application registers them, rendered by {@link PrometheusExposition}
 * and read back by the strict parser. A name counts as present when a sample of exactly that name
 * is exposed: {@code x_total} for a counter, {@code x} and {@code x_count} for a summary (and so a
 * query on {@code x_sum} or {@code x_bucket}, which Sluice does not expose, fails here).
 */
class DeployedQueriesTest {
  private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*([^,{)]+)");


  private static Set<String> exposedSampleNames;
  private static Map<String, String> queries; // where -> PromQL

  @BeforeAll
  static void scrapeAndRead() throws IOException {
    exposedSampleNames = new TreeSet<>();
    for (Family family : PrometheusTextParser.parse(everyMetricOnce()).families()) {
      family.samples().stream().map(Sample::name).forEach(exposedSampleNames::add);
    }
    Path deploy = DeployConfigTest.repositoryRoot().resolve("deploy");
    queries = new TreeMap<>();
    JsonNode dashboard = new ObjectMapper().readTree(deploy.resolve("grafana/sluice-dashboard.json").toFile());
    collectDashboardQueries(dashboard.path("panels"), queries);
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      String query = variable.path("query").path("query").asText(variable.path("query").asText());
      Matcher m = LABEL_VALUES.matcher(query);
      if (m.find()) {
        queries.put("dashboard variable " + variable.path("name").asText(), m.group(1).trim());
      }
    }
    JsonNode rules = new YAMLMapper().readTree(deploy.resolve("prometheus/sluice-alerts.yaml").toFile());
    for (JsonNode group : rules.path("groups")) {
      for (JsonNode rule : group.path("rules")) {
        queries.put("alert " + rule.path("alert").asText(), rule.path("expr").asText());
      }
    }
  }

  private static String everyMetricOnce() {
    MetricRegistry registry = new MetricRegistry();
    SluiceMetrics metrics = new SluiceMetrics(registry);
    String p = "payments-api";
    String tier = "pro";
    metrics.decided(p, tier);
    // SluiceApp registers one per group and topic it reads the lag of.
    metrics.gauge(() -> 0.0, "sluice_consumer_lag", "group", "sluice-gate", "topic", "sluice.inbound");
    metrics.redisCall(p, 1_000_000);
    metrics.admitted(p, tier, 1);
    metrics.deferred(p, tier, Reason.RATE_LIMITED, true);
    metrics.dead(Reason.INVALID);
    metrics.shadowWouldDefer(p, tier);
    metrics.redisFallback(p, RedisDownPolicy.LOCAL);
    metrics.released("sluice.ready", 5);
    metrics.hopped("sluice.delay.30s", "sluice.delay.5s");
    metrics.deadLettered("no sluice-not-before");
    metrics.callStarted(p, tier, 0, 1_000);
    metrics.callEnded(p, tier, new ProviderResult.Answered(429, "1"), 2_000_000);
    metrics.delivered(p, tier);
    metrics.deferred(p, tier, Reason.PROVIDER_5XX);
    metrics.dead(p, tier, Reason.MAX_ATTEMPTS);
    metrics.throttled(p, 1_000);
    metrics.leakUnavailable(p, new IllegalStateException("circuit open"));
    metrics.providerLane(p, () -> 3, () -> 1, () -> 50.0);
    metrics.pacedRate(p, () -> 40.0);
    metrics.paceFactor(() -> 1.0);
    metrics.tenantRegistryStale(() -> false);
    RedisCircuit circuit = new RedisCircuit(250, 10_000, state -> { });
    metrics.redisCircuit("gate", circuit);
    metrics.redisCircuit("dispatcher", circuit);
    String text = new PrometheusExposition(registry).render();
    ExpositionGrammar.assertEveryLineValid(text);
    return text;
  }

  private static void collectDashboardQueries(JsonNode panels, Map<String, String> into) {
    for (JsonNode panel : panels) {
      int i = 0;
      for (JsonNode target : panel.path("targets")) {
        into.put("panel '" + panel.path("title").asText() + "' target " + i++, target.path("expr").asText());
      }
      collectDashboardQueries(panel.path("panels"), into); // panels inside collapsed rows
    }
  }

  @Test
  void shouldReadQueriesFromEveryPanelVariableAndRule() {
    assertTrue(queries.size() >= 30, "found only " + queries.size() + " queries: " + queries.keySet());
    queries.forEach((where, expr) -> assertTrue(!expr.isBlank(), where + " has no expression"));
  }

  @Test
  void shouldOnlyNameMetricsThatMetricsExposes() {
    List<String> missing = new ArrayList<>();
    queries.forEach((where, expr) -> {
      for (String name : PromQlNames.of(expr)) {
        if (!exposedSampleNames.contains(name)) {
          missing.add(name + " (" + where + ")");
        }
      }
    });
    assertEquals(List.of(), missing, "exposed: " + exposedSampleNames);
  }

  @Test
  void shouldCoverWhatAnOperatorWatches() {
    Set<String> named = new TreeSet<>();
    queries.values().forEach(expr -> named.addAll(PromQlNames.of(expr)));
    for (String required : List.of(
        "sluice_dispatch_calls_total", "sluice_dispatch_configured_rate",      // leak vs configured
        "sluice_dispatch_provider_429_total",                                    // provider 429s
        "sluice_gate_dead_total", "sluice_dispatch_dead_total", "sluice_relay_dead_total", // dead letters
        "sluice_relay_lateness_seconds",                                         // relay lateness
        "sluice_dispatch_buffered",                                              // buffer depth
        "sluice_redis_circuit_open", "sluice_gate_redis_fallback_total",         // Redis fallback
        "sluice_gate_decisions_total")) {                                        // decisions per event
      assertTrue(named.contains(required), required + " is in no panel or rule");
    }
  }
}
