package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class HealthTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static HealthCheck check(String name, HealthCheck.Result result) {
    return new HealthCheck() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Result check() {
        return result;
      }
    };
  }

  @Test
  void shouldBeUpWhenEveryDependencyAnswersAndEveryRoleIsHealthy() throws Exception {
    Health health = new Health(
        List.of(check("kafka", HealthCheck.Result.reachable("1 broker(s)")),
            check("redis", HealthCheck.Result.reachable("PONG"))),
        Map.of("gate", () -> RoleStatus.healthy("RUNNING")));

    HealthReport report = health.report();
    JsonNode json = JSON.readTree(report.toJson());

    assertTrue(report.up());
    assertEquals("UP", json.get("status").asText());
    assertEquals(0, json.get("down").size());
    assertTrue(json.get("kafka").get("reachable").asBoolean());
    assertEquals("PONG", json.get("redis").get("detail").asText());
    assertEquals("RUNNING", json.get("roles").get("gate").asText());
  }

  @Test
  void shouldBeDownNamingAnUnreachableDependency() throws Exception {
    Health health = new Health(
        List.of(check("kafka", HealthCheck.Result.reachable("ok")),
            check("redis", HealthCheck.Result.unreachable("Connection refused"))),
        Map.of());

    JsonNode json = JSON.readTree(health.report().toJson());

    assertEquals("DOWN", json.get("status").asText());
    assertEquals("[\"redis\"]", json.get("down").toString());
    assertFalse(json.get("redis").get("reachable").asBoolean());
    assertEquals("Connection refused", json.get("redis").get("detail").asText());
  }

  @Test
  void shouldBeDownNamingAnUnhealthyRole() {
    Health health = new Health(List.of(), Map.of("gate", () -> RoleStatus.unhealthy("ERROR")));

    assertEquals(List.of("gate"), health.report().down());
  }

  @Test
  void shouldReportACheckThatThrowsAsUnreachable() {
    HealthCheck throwing = new HealthCheck() {
      @Override
      public String name() {
        return "redis";
      }

      @Override
      public Result check() {
        throw new IllegalStateException("bug");
      }
    };
    Supplier<RoleStatus> throwingRole = () -> {
      throw new IllegalStateException("no state");
    };

    HealthReport report = new Health(List.of(throwing), Map.of("relay", throwingRole)).report();

    assertEquals(List.of("redis", "relay"), report.down());
    assertTrue(report.dependencies().get("redis").detail().contains("bug"));
  }

  @Test
  void shouldRefuseCheckNamesThatClashWithTheReportsOwnKeys() {
    assertThrows(IllegalArgumentException.class,
        () -> new Health(List.of(check("status", HealthCheck.Result.reachable(""))), Map.of()));
    assertThrows(IllegalArgumentException.class, () -> new Health(
        List.of(check("redis", HealthCheck.Result.reachable("")), check("redis", HealthCheck.Result.reachable(""))),
        Map.of()));
  }
}
