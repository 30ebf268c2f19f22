package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.util.List;
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

  /**
   * The operator's pause is sent between restarts, for the 45 s IT and the default full run
   * alike: a command sent while the broker or Redis is away is refused until it returns (at 40%
   * of the IT's load it fell on both restarts and the pause was never set).
   */
  @Test
  void shouldSendThePauseWhileNeitherTheBrokerNorRedisIsRestarting() {
    for (long[] run : new long[][] {{45, 1, 1}, {240, 2, 5}}) {
      long loadMillis = run[0] * 1000;
      long sent = (long) (ChaosScenario.PAUSE_FROM * loadMillis);
      long done = sent + 8_000; // a CLI JVM on a loaded machine, with a retry
      for (FaultPlan.Fault f : FaultPlan.of(List.of("gate", "relay", "dispatcher"), 6, (int) run[1],
          (int) run[2], loadMillis, 11)) {
        if (f.kind() != FaultPlan.Kind.KILL_ROLE) {
          assertTrue(f.atMillis() + f.downMillis() + 2_000 < sent || f.atMillis() > done,
              () -> run[0] + " s run: " + f + " overlaps the pause sent at " + sent + " ms");
        }
      }
    }
  }
}
