package io.sluice.app.ops;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The inputs of {@code /ready}, {@code /health} and {@code /live}: dependency checks and role
 * states, asked on each request ({@code /live} asks the roles only).
 *
 * <p>Checks run one after the other on the HTTP thread. Each bounds its own time (the Kafka and
 * Redis checks give up after about two and one seconds, and cache their answer for one second),
 * so a request takes at most the sum of those even with everything down.
 */
public final class Health {
  private static final Set<String> RESERVED = Set.of("status", "down", "roles");

  private final List<HealthCheck> checks;
  private final Map<String, Supplier<RoleStatus>> roles;

  /**
   * @param checks dependency checks, with distinct names other than status, down and roles
   * @param roles  the state of each role by name, asked on each request
   */
  public Health(List<HealthCheck> checks, Map<String, Supplier<RoleStatus>> roles) {
    this.checks = List.copyOf(checks);
    this.roles = new LinkedHashMap<>(roles);
    Set<String> names = new HashSet<>();
    for (HealthCheck check : this.checks) {
      if (RESERVED.contains(check.name()) || !names.add(check.name())) {
        throw new IllegalArgumentException("health check name " + check.name()
            + " is taken (names must be distinct and not status, down or roles)");
      }
    }
  }

  public HealthReport report() {
    Map<String, HealthCheck.Result> dependencies = new LinkedHashMap<>();
    for (HealthCheck check : checks) {
      HealthCheck.Result result;
      try {
        result = check.check();
      } catch (RuntimeException e) {
        result = HealthCheck.Result.unreachable("check failed: " + e);
      }
      dependencies.put(check.name(), result);
    }
    return new HealthReport(dependencies, roleStates());
  }

  /** The roles alone, for {@code /live}: asks no dependency, so it is quick whatever is down. */
  public HealthReport liveness() {
    return new HealthReport(Map.of(), roleStates()).liveness();
  }

  private Map<String, RoleStatus> roleStates() {
    Map<String, RoleStatus> states = new LinkedHashMap<>();
    roles.forEach((name, state) -> {
      RoleStatus status;
      try {
        status = state.get();
      } catch (RuntimeException e) {
        status = RoleStatus.unhealthy("UNKNOWN (" + e + ")");
      }
      states.put(name, status);
    });
    return states;
  }
}
