package io.sluice.app.simulate;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A small scenario for the simulation's specifications: a configuration written as a user writes
 * one (one provider {@code p}, tiers {@code gold: 3} and {@code free: 1}), and events as the
 * recorded file holds them.
 */
final class Scenario {
  /** The scenario's epoch: 2023-11-14T22:13:20Z. */
  static final long T0 = 1_700_000_000_000L;

  private Scenario() {}

  /**
   * @param providerRate the provider's leak, e.g. {@code "100000/s"}
   * @param quota        every tier's quota toward {@code p}, e.g. {@code "{ capacity: 10, refill: 10/s }"}
   * @param tenants      YAML lines of the {@code tenants:} map, e.g. {@code "a: { tier: gold }"}
   */
  static SluiceConfig config(String providerRate, String quota, String... tenants) {
    return ConfigLoader.parse(yaml(providerRate, quota, tenants), Map.of());
  }

  static String yaml(String providerRate, String quota, String... tenants) {
    StringBuilder y = new StringBuilder("""
        kafka: { bootstrap: "localhost:9092" }
        redis: { uri: "redis://localhost:6379" }
        ladder: [1s, 5s]
        maxAttempts: 5
        reservationHorizon: 60s
        tiers: { gold: { weight: 3 }, free: { weight: 1 } }
        defaultTier: free
        providers:
          p:
            url: "http://localhost:9/"
            rate: %s
            maxInFlight: 16
            timeout: 5s
            quotas:
              gold: %s
              free: %s
        gate: { applicationId: "sim-gate" }
        dispatcher: { groupId: "sim-dispatcher" }
        """.formatted(providerRate, quota, quota));
    if (tenants.length > 0) {
      y.append("tenants:\n");
      for (String t : tenants) {
        y.append("  ").append(t).append('\n');
      }
    }
    return y.toString();
  }

  /** An event line: {@code tenant}'s event {@code id} toward {@code p}, arriving {@code atMillis} after T0. */
  static String line(String tenant, String id, long atMillis) {
    return line(tenant, id, atMillis, "");
  }

  /** {@link #line(String, String, long)} with more fields, e.g. {@code , "deadline": "..."}. */
  static String line(String tenant, String id, long atMillis, String more) {
    return "{\"ts\": " + (T0 + atMillis) + ", \"id\": \"" + id + "\", \"tenant\": \"" + tenant
        + "\", \"provider\": \"p\", \"payload\": {}" + more + "}";
  }

  /** {@code n} events of {@code tenant} at once, at {@code atMillis}. */
  static List<String> burst(String tenant, int n, long atMillis) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      lines.add(line(tenant, tenant + "-" + atMillis + "-" + i, atMillis));
    }
    return lines;
  }

  static RecordedEvents input(List<String> lines) {
    return RecordedEvents.of(new ByteArrayInputStream(String.join("\n", lines).getBytes(StandardCharsets.UTF_8)),
        new RecordedEvents.Bounds(Long.MAX_VALUE, Long.MAX_VALUE, 1 << 20, Duration.ofDays(7)));
  }

  /** Each configuration's outcome over the same lines, the first labelled "current". */
  static List<Simulation.Outcome> run(List<String> lines, SluiceConfig... configs) {
    return run(lines, Duration.ZERO, configs);
  }

  /** {@link #run(List, SluiceConfig...)} with the pipeline's own delay. */
  static List<Simulation.Outcome> run(List<String> lines, Duration pipelineDelay, SluiceConfig... configs) {
    List<Simulator.Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < configs.length; i++) {
      candidates.add(new Simulator.Candidate(i == 0 ? "current" : "candidate " + i, configs[i]));
    }
    return Simulator.run(candidates, input(lines), 1000, pipelineDelay).runs().stream().map(Simulator.Run::outcome).toList();
  }
}
