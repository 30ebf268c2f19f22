package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A provider's {@code maxDelay}, {@code dedupWindow} and ordering: their defaults, bounds, and each mistake named by its field. */
class ProviderIntakeConfigTest {
  private static final String CONFIG = """
      LADDER
      tiers:
        free: { weight: 1 }
      providers:
        hooks:
          url: http://localhost:8081/hooks
          rate: 10/s
          INTAKE
          quotas:
            free: { capacity: 10, refill: 2/s }
      """;

  private static ProviderIntake intake(String ladder, String intake) {
    return ConfigLoader.parse(CONFIG.replace("LADDER", ladder).replace("INTAKE", intake), Map.of())
        .providers().get("hooks").intake();
  }

  private static String error(String ladder, String intake) {
    return assertThrows(ConfigException.class, () -> ConfigLoader.parse(
        CONFIG.replace("LADDER", ladder).replace("INTAKE", intake), Map.of())).getMessage();
  }

  @Test
  void shouldTakeTenMinutesAheadAndNoDedupByDefault() {
    ProviderIntake intake = intake("", "maxInFlight: 4");
    assertEquals(Duration.ofMinutes(10), intake.maxDelay(), "the default ladder's longest step: one record");
    assertEquals(Duration.ZERO, intake.dedupWindow());
    assertEquals(false, intake.dedups());
    assertEquals(OrderingRule.OFF, intake.ordering(), "events unordered unless asked");
  }

  @Test
  void shouldBindOrderingPerKeyItsDeadHeadAndItsBound() {
    assertEquals(new OrderingRule(true, false, OrderingRule.DEFAULT_KEYS_IN_FLIGHT),
        intake("", "ordering: perKey").ordering());
    assertEquals(new OrderingRule(true, true, 50),
        intake("", "ordering: perKey\n    orderingOnDeadHead: deadLetter\n    maxOrderingKeys: 50").ordering());
    assertEquals(false, intake("", "ordering: none").orders());
  }

  @Test
  void shouldLetTheSchemaNameAMistakeInOrdering() {
    assertTrue(error("", "ordering: fifo").startsWith("providers.hooks.ordering:"));
    assertTrue(error("", "orderingOnDeadHead: skip").startsWith("providers.hooks.orderingOnDeadHead:"));
    assertTrue(error("", "maxOrderingKeys: 0").startsWith("providers.hooks.maxOrderingKeys:"));
  }

  @Test
  void shouldBindDaysWhenTheLadderMakesThemCheap() {
    ProviderIntake intake = intake("ladder: [1s, 5s, 30s, 2m, 10m, 1h, 6h]", "maxDelay: 1d\n    dedupWindow: 7d");
    assertEquals(Duration.ofDays(1), intake.maxDelay());
    assertEquals(Duration.ofDays(7), intake.dedupWindow());
  }

  @Test
  void shouldRefuseAMaxDelayThatCostsARecordPerStepPerFewMinutesNamingTheFieldAndTheFix() {
    String message = error("", "maxDelay: 1d");
    assertTrue(message.startsWith("providers.hooks.maxDelay: 1d ahead would cost an event 144 delay "
        + "records with the ladder's longest step, 10m (at most 50); add a longer step to ladder"), message);
  }

  @Test
  void shouldRefuseADedupWindowOutsideTenMinutesToSevenDays() {
    assertEquals("providers.hooks.dedupWindow: expected from 10m to 7d, got 5m",
        firstLine(error("", "dedupWindow: 5m")));
    assertEquals("providers.hooks.dedupWindow: expected from 10m to 7d, got 8d",
        firstLine(error("", "dedupWindow: 8d")));
  }

  @Test
  void shouldLetTheSchemaNameAMalformedDuration() {
    assertTrue(error("", "maxDelay: PT1H").startsWith("providers.hooks.maxDelay:"));
    assertTrue(error("", "dedupWindow: 1 day").startsWith("providers.hooks.dedupWindow:"));
  }

  private static String firstLine(String message) {
    return message.lines().findFirst().orElse("");
  }
}
