package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The configuration a chaos run gives every role is one Sluice accepts, with its isolation parts. */
class ChaosScenarioTest {
  private final SluiceConfig config = ConfigLoader.parse(ChaosScenario.yaml("localhost:9092",
      "redis://127.0.0.1:6379", p -> "http://127.0.0.1:8080/" + p, 20), Map.of());

  @Test
  void shouldGiveEveryTenantAnEndpointOfItsOwnAtTheHooksProvider() {
    assertEquals(ChaosScenario.PROVIDER_NAMES.size(), config.providers().size());
    assertTrue(config.providers().containsKey(ChaosScenario.HOOKS));
    assertTrue(ChaosScenario.yaml("b", "redis://r", p -> "http://h/" + p, 20)
        .contains("free-4: { tier: free, endpoints: { p-hooks: \"http://h/p-hooks/free-4\" } }"));
  }

  @Test
  void shouldKeepTheDeadEndpointsEventsWaitingAndThePauseInsideTheLoad() {
    assertTrue(ChaosScenario.yaml("b", "redis://r", p -> "http://h/" + p, 20)
        .contains("whileDisabled: wait"));
    assertTrue(ChaosScenario.DEAD_FROM < ChaosScenario.DEAD_TO && ChaosScenario.DEAD_TO < 1);
    assertTrue(ChaosScenario.PAUSE_FROM < ChaosScenario.PAUSE_TO && ChaosScenario.PAUSE_TO < 1);
  }
}
