package io.sluice.lab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.CliRun;
import io.sluice.lab.bench.BenchRun;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The lab's commands on the application's command line, as {@code sluice-lab.jar} runs it. */
class LabCliTest {
  @ParameterizedTest(name = "sluice {0} --help")
  @ValueSource(strings = {"demo", "bench", "chaos"})
  @DisplayName("with the lab on the class path, each of its commands' --help exits 0 and prints its usage")
  void helpOfEveryLabCommand(String command) {
    CliRun run = CliRun.of(command, "--help");

    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.out().contains("Usage: sluice " + command), run.output());
  }

  @ParameterizedTest(name = "sluice {0} --help")
  @ValueSource(strings = {"run", "topics", "verify"})
  @DisplayName("the lab's jar keeps the application's commands (chaos runs its roles with it)")
  void applicationCommandsStay(String command) {
    CliRun run = CliRun.of(command, "--help");

    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.out().contains("Usage: sluice " + command), run.output());
  }

  @Test
  @DisplayName("bench --help names every scenario bench can run")
  void benchHelpNamesEveryScenario() {
    String help = CliRun.of("bench", "--help").out().replaceAll("\\s+", " ");

    for (String scenario : BenchRun.names()) {
      assertTrue(help.contains(scenario + ",") || help.contains(scenario + "."),
          scenario + " missing from: " + help);
    }
  }
}
