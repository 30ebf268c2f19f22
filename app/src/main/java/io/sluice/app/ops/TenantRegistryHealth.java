package io.sluice.app.ops;

import io.sluice.redis.tenants.TenantCache;
import io.sluice.redis.tenants.TenantWatcher;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The tenant registry as this gate follows it, as a {@code /health} entry ({@code tenantRegistry});
 * or as this dispatcher follows it for tenants' endpoints ({@code dispatcherTenantRegistry}, when
 * a provider has {@code endpoints: perTenant}), the same detail naming the dispatcher.
 * Informational: a stale registry never makes an instance unready or not live (the gate goes on
 * deciding, with what it keeps and the file; taking the instance away would stop admitting
 * everyone for the sake of a few changed quotas).
 *
 * <p>{@code "detail"}, as the watcher's {@link TenantWatcher.View} says:
 * <ul>
 *   <li>{@code "read 1 s ago (version 17); 3 tenants kept"};</li>
 *   <li>{@code "stale since 2026-11-26T20:00:05Z (last read 2026-11-26T20:00:00Z, 12 s ago): the
 *       3 tenants kept stay in force as read at version 17; other tenants are decided by the
 *       file"}, once no read succeeded for {@link TenantCache#STALE_AFTER};</li>
 *   <li>{@code "stale: not read since this gate started: every tenant is decided by the file"};</li>
 *   <li>{@code "not followed: no provider has endpoints: perTenant in the configuration in force"}
 *       (a dispatcher restarted by a reload that removed them).</li>
 * </ul>
 * Pure: the clock is passed in.
 */
public final class TenantRegistryHealth implements HealthCheck {
  private final String name;
  private final String role;
  /** The view; empty when this instance follows no registry now. */
  private final Supplier<Optional<TenantWatcher.View>> view;
  private final Clock clock;

  /**
   * @param view  the running gate's view of the registry
   * @param clock the wall clock, for the times in the detail
   */
  public TenantRegistryHealth(Supplier<TenantWatcher.View> view, Clock clock) {
    this("tenantRegistry", "gate", () -> Optional.of(view.get()), clock);
  }

  private TenantRegistryHealth(String name, String role,
      Supplier<Optional<TenantWatcher.View>> view, Clock clock) {
    this.name = name;
    this.role = role;
    this.view = view;
    this.clock = clock;
  }

  /**
   * The running dispatcher's view of the registry (its tenants' endpoints),
   * {@code dispatcherTenantRegistry}; {@code view} empty when the dispatcher running now follows
   * none (restarted by a reload from a configuration without {@code endpoints: perTenant}).
   */
  public static TenantRegistryHealth ofDispatcher(Supplier<Optional<TenantWatcher.View>> view,
      Clock clock) {
    return new TenantRegistryHealth("dispatcherTenantRegistry", "dispatcher", view, clock);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Result check() {
    Optional<TenantWatcher.View> followed = view.get();
    if (followed.isEmpty()) {
      return Result.reachable("not followed: no provider has endpoints: perTenant in the"
          + " configuration in force");
    }
    TenantWatcher.View v = followed.get();
    if (v.sinceLastRead().isEmpty()) {
      return Result.reachable("stale: not read since this " + role + " started: every tenant is"
          + " decided by the file");
    }
    Duration ago = v.sinceLastRead().get();
    if (!v.stale()) {
      return Result.reachable("read " + ago.toSeconds() + " s ago (version " + v.version() + "); "
          + v.kept() + " tenants kept");
    }
    Instant last = clock.instant().minus(ago).truncatedTo(ChronoUnit.SECONDS);
    return Result.reachable("stale since " + last.plus(TenantCache.STALE_AFTER) + " (last read "
        + last + ", " + ago.toSeconds() + " s ago): the " + v.kept() + " tenants kept stay in"
        + " force as read at version " + v.version() + "; other tenants are decided by the file");
  }
}
