package io.sluice.app.ops;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code /ready} (and {@code /health}) answers: every dependency check and every role, and
 * from them UP or DOWN; {@link #liveness()} is what {@code /live} answers.
 * The instance is UP when every dependency is reachable and every role is healthy; {@link #down()}
 * names what is not, so a person (or an alert) sees the reason without reading the whole body.
 *
 * <pre>{@code
 * {"status":"DOWN","down":["redis"],
 *  "kafka":{"reachable":true,"detail":"1 broker(s), cluster id q1Sh-9_ISia_zwGINzRvyQ"},
 *  "redis":{"reachable":false,"detail":"Connection refused: localhost/127.0.0.1:6379"},
 *  "roles":{"gate":"RUNNING"}}
 * }</pre>
 *
 * @param dependencies results by check name, in the order the checks were given
 * @param roles        role states by role name, in the order the roles were given
 */
public record HealthReport(Map<String, HealthCheck.Result> dependencies, Map<String, RoleStatus> roles) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public HealthReport {
    dependencies = Collections.unmodifiableMap(new LinkedHashMap<>(dependencies));
    roles = Collections.unmodifiableMap(new LinkedHashMap<>(roles));
  }

  public boolean up() {
    return down().isEmpty();
  }

  /**
   * What {@code /live} answers: the roles alone, each up while it is live
   * ({@link RoleStatus#live()}); no dependency, so Kafka or Redis being away never makes an
   * instance look dead to a restart policy.
   */
  public HealthReport liveness() {
    Map<String, RoleStatus> live = new LinkedHashMap<>();
    roles.forEach((name, status) -> live.put(name,
        new RoleStatus(status.state(), status.live(), status.live())));
    return new HealthReport(Map.of(), live);
  }

  /** Unreachable dependencies then unhealthy roles, by name. */
  public List<String> down() {
    List<String> down = new ArrayList<>();
    dependencies.forEach((name, result) -> {
      if (!result.reachable()) {
        down.add(name);
      }
    });
    roles.forEach((name, status) -> {
      if (!status.healthy()) {
        down.add(name);
      }
    });
    return down;
  }

  public String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("status", up() ? "UP" : "DOWN");
    down().forEach(root.putArray("down")::add);
    dependencies.forEach((name, result) -> root.putObject(name)
        .put("reachable", result.reachable())
        .put("detail", result.detail()));
    ObjectNode roleNode = root.putObject("roles");
    roles.forEach((name, status) -> roleNode.put(name, status.state()));
    try {
      return JSON.writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e); // cannot happen for a tree of strings and booleans
    }
  }
}
