package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.ops.MetricNames;
import io.sluice.app.ops.RoleStatus;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A provider waiting for its OAuth2 token makes the dispatcher not ready (yet live), and a gauge says so. */
class CredentialReadinessTest {
  @Test
  @DisplayName("/ready: WAITING while a provider has no OAuth2 token, RUNNING once it has one")
  void waitingForATokenIsNotReadyButLive() {
    RoleStatus waiting = SluiceApp.dispatcherStatus(true, Optional.empty(),
        Map.of("partner", "provider partner: no OAuth2 token: token endpoint answered 503"));

    assertEquals(RoleStatus.unhealthy(
        "WAITING: provider partner: no OAuth2 token: token endpoint answered 503"), waiting);
    assertEquals(true, waiting.live());
    assertEquals(RoleStatus.healthy("RUNNING"), SluiceApp.dispatcherStatus(true, Optional.empty(), Map.of()));
    assertEquals(RoleStatus.unhealthy("STUCK: x"),
        SluiceApp.dispatcherStatus(true, Optional.of("x"), Map.of("partner", "p")));
    assertEquals(RoleStatus.unhealthy("STOPPED"), SluiceApp.dispatcherStatus(false, Optional.empty(), Map.of()));
  }

  @Test
  @DisplayName("/health: an overloaded dispatcher says how far it slowed itself down, and stays healthy")
  void overloadedIsSaidAndHealthy() {
    assertEquals(RoleStatus.healthy("RUNNING (overloaded: every lane at 45% of its rate)"),
        SluiceApp.dispatcherStatus(true, Optional.empty(), Map.of(), 0.45));
    assertEquals(RoleStatus.healthy("RUNNING"),
        SluiceApp.dispatcherStatus(true, Optional.empty(), Map.of(), 1.0));
  }

  @Test
  @DisplayName("sluice_provider_credential_ready{provider} is 0 while calls wait for a token")
  void gaugeFollowsTheToken() {
    MetricRegistry registry = new MetricRegistry();
    AtomicInteger ready = new AtomicInteger(0);
    new SluiceMetrics(registry).credentialReady("partner", ready::get);
    String gauge = MetricNames.name("sluice_provider_credential_ready", "provider", "partner");

    assertEquals(0, registry.getGauges().get(gauge).getValue());
    ready.set(1);
    assertEquals(1, registry.getGauges().get(gauge).getValue());
  }
}
