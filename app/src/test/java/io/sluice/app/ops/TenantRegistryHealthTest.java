package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.redis.tenants.TenantWatcher;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The tenant registry in /health: what is in force and since when, never a reason to be unready. */
class TenantRegistryHealthTest {
  private static final Clock NOW = Clock.fixed(Instant.parse("2026-11-26T20:00:12Z"), ZoneOffset.UTC);

  private static HealthCheck.Result check(TenantWatcher.View view) {
    return new TenantRegistryHealth(() -> view, NOW).check();
  }

  @Test
  @DisplayName("read within the last seconds: when, the version and the tenants kept")
  void fresh() {
    assertEquals(HealthCheck.Result.reachable("read 1 s ago (version 17); 3 tenants kept"),
        check(new TenantWatcher.View(false, Optional.of(Duration.ofMillis(1_400)), 17, 3)));
  }

  @Test
  @DisplayName("stale: since when, what stays in force, and the instance stays ready")
  void stale() {
    assertEquals(HealthCheck.Result.reachable("stale since 2026-11-26T20:00:05Z (last read "
            + "2026-11-26T20:00:00Z, 12 s ago): the 3 tenants kept stay in force as read at "
            + "version 17; other tenants are decided by the file"),
        check(new TenantWatcher.View(true, Optional.of(Duration.ofSeconds(12)), 17, 3)));
  }

  @Test
  @DisplayName("never read since start: the file decides every tenant")
  void neverRead() {
    assertEquals(HealthCheck.Result.reachable(
            "stale: not read since this gate started: every tenant is decided by the file"),
        check(new TenantWatcher.View(true, Optional.empty(), -1, 0)));
  }

  @Test
  @DisplayName("a dispatcher's view of the registry (its tenants' endpoints) is its own entry")
  void dispatcher() {
    TenantRegistryHealth health = TenantRegistryHealth.ofDispatcher(
        () -> Optional.of(new TenantWatcher.View(true, Optional.empty(), -1, 0)), NOW);
    assertEquals("dispatcherTenantRegistry", health.name());
    assertEquals(HealthCheck.Result.reachable(
            "stale: not read since this dispatcher started: every tenant is decided by the file"),
        health.check());
  }

  @Test
  @DisplayName("a dispatcher restarted by a reload from a configuration without perTenant: not followed")
  void dispatcherFollowingNone() {
    assertEquals(HealthCheck.Result.reachable("not followed: no provider has endpoints: perTenant"
            + " in the configuration in force"),
        TenantRegistryHealth.ofDispatcher(Optional::empty, NOW).check());
  }
}
