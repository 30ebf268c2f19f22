package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.CliRun;
import org.junit.jupiter.api.Test;

class ChaosCommandTest {
  @Test
  void theChaosCommandIsRegisteredAndNamesItsOptions() {
    CliRun run = CliRun.of("chaos", "--help");
    assertEquals(0, run.exitCode());
    for (String option : new String[] {"--kills", "--events", "--duration", "--redis-restarts",
        "--broker-restarts", "--settle", "--max-retry-after", "--seed", "--work-dir",
        "--report-json"}) {
      assertTrue(run.out().contains(option), () -> option + " missing from\n" + run.out());
    }
  }

  @Test
  void aNegativeKillCountIsABadCommandLine() {
    CliRun run = CliRun.of("chaos", "--kills", "-1");
    assertEquals(2, run.exitCode(), run.err());
  }

  @Test
  void aRunRestartsTheBrokerFiveTimesAndKillsTwentyTimesByDefault() {
    CliRun run = CliRun.of("chaos", "--help");
    assertTrue(run.out().replaceAll("\\s+", " ").contains("SIGKILL + start of the broker (default: 5)"), run.out());
    assertTrue(run.out().replaceAll("\\s+", " ").contains("followed by a restart (default: 20)"), run.out());
  }
}
