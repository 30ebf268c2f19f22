package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.ops.MetricNames;
import io.sluice.config.ConfigLoader;
import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What reads the configuration for metrics reads the one in force, reloads included. */
class ReloadedGaugesTest {
  private static final String YAML = """
      kafka: { bootstrap: "localhost:9092" }
      redis: { uri: "redis://localhost:6379" }
      tiers: { std: { weight: 1 } }
      defaultTier: std
      providers:
        api:
          url: http://localhost:1/
          rate: 50/s
          quotas: { std: { capacity: 10, refill: 1/s } }
      """;

  private static SluiceConfig config(String rate) {
    return ConfigLoader.parse(YAML.replace("rate: 50/s", "rate: " + rate), Map.of());
  }

  @Test
  @DisplayName("sluice_dispatch_configured_rate shows a rate a reload set, not the one at start-up")
  void configuredRateFollowsReloads() {
    MetricRegistry registry = new MetricRegistry();
    LiveConfig live = new LiveConfig(config("50/s"));
    new SluiceMetrics(registry).providerLane("api", () -> 0, () -> 0,
        SluiceApp.configuredRate(live, "api"));
    String gauge = MetricNames.name("sluice_dispatch_configured_rate", "provider", "api");
    assertEquals(50.0, registry.getGauges().get(gauge).getValue());

    assertInstanceOf(LiveConfig.Outcome.Applied.class, live.reload(() -> config("20/s")));
    assertEquals(20.0, registry.getGauges().get(gauge).getValue());
  }

  @Test
  @DisplayName("sluice_dispatch_total_paced_rate shows a per-tenant provider's totalRate in force: "
      + "a reload that changes it is refused (a restart applies it), and the gauge keeps the old")
  void totalPacedRateShowsTheTotalInForce() {
    String perTenant = YAML.replace("url: http://localhost:1/", "endpoints: perTenant");
    MetricRegistry registry = new MetricRegistry();
    LiveConfig live = new LiveConfig(ConfigLoader.parse(
        perTenant.replace("rate: 50/s", "rate: 5/s\n    totalRate: 40/s"), Map.of()));
    new SluiceMetrics(registry).totalPacedRate("api",
        SluiceApp.totalRate(live, "api")::getAsDouble);
    String gauge = MetricNames.name("sluice_dispatch_total_paced_rate", "provider", "api");
    assertEquals(40.0, registry.getGauges().get(gauge).getValue());

    assertInstanceOf(LiveConfig.Outcome.Rejected.class, live.reload(() -> ConfigLoader.parse(
        perTenant.replace("rate: 50/s", "rate: 5/s\n    totalRate: 30/m"), Map.of())));
    assertEquals(40.0, registry.getGauges().get(gauge).getValue());
  }
}
