package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.codahale.metrics.MetricRegistry;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code sluice_gate_tenant_registry_stale}: the gate's registry view, for an alert and a panel. */
class TenantRegistryStaleGaugeTest {
  @Test
  @DisplayName("1 while the gate's view of the registry is stale, 0 once read again")
  void followsTheWatcher() {
    MetricRegistry registry = new MetricRegistry();
    AtomicBoolean stale = new AtomicBoolean(true);
    new SluiceMetrics(registry, System::currentTimeMillis).tenantRegistryStale(stale::get);
    assertEquals(1, registry.getGauges().get("sluice_gate_tenant_registry_stale").getValue());
    stale.set(false);
    assertEquals(0, registry.getGauges().get("sluice_gate_tenant_registry_stale").getValue());
  }
}
