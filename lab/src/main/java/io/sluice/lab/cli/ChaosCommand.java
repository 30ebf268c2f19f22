package io.sluice.lab.cli;

import io.sluice.app.cli.Sluice;
import io.sluice.lab.chaos.ChaosOptions;
import io.sluice.lab.chaos.ChaosReport;
import io.sluice.lab.chaos.ChaosRun;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code sluice chaos}: the roles as processes, SIGKILLed and restarted under load. */
@Command(name = "chaos", mixinStandardHelpOptions = true,
    description = "Run the gate, the relay and two dispatchers as separate processes from this "
        + "jar, against a broker process and redis-server, SIGKILL and restart them under load "
        + "while the providers fail in phases; report lost events, duplicates, the longest gap "
        + "in calls, over-admission and 429s. Exit 1 if anything was lost or over-admitted.")
final class ChaosCommand implements Callable<Integer> {
  @Option(names = "--kills", defaultValue = "20",
      description = "SIGKILLs of the roles, each followed by a restart "
          + "(default: ${DEFAULT-VALUE}).")
  int kills;

  @Option(names = "--events", defaultValue = "6000",
      description = "Events produced over the load period (default: ${DEFAULT-VALUE}).")
  int events;

  @Option(names = "--duration", defaultValue = "240", paramLabel = "SECONDS",
      description = "The load period, during which the faults happen (default: ${DEFAULT-VALUE}).")
  long duration;

  @Option(names = "--redis-restarts", defaultValue = "2",
      description = "SIGKILL + start of redis-server (default: ${DEFAULT-VALUE}).")
  int redisRestarts;

  @Option(names = "--broker-restarts", defaultValue = "5",
      description = "SIGKILL + start of the broker (default: ${DEFAULT-VALUE}).")
  int brokerRestarts;

  @Option(names = "--settle", defaultValue = "300", paramLabel = "SECONDS",
      description = "How long to wait after the load for every event to end "
          + "(default: ${DEFAULT-VALUE}).")
  long settle;

  @Option(names = "--max-retry-after", defaultValue = "20", paramLabel = "SECONDS",
      description = "Every provider's maxRetryAfter, the longest one answer holds it: short, so "
          + "that calls resume within the run after each of the hostile answers "
          + "(default: ${DEFAULT-VALUE}).")
  int maxRetryAfter;

  @Option(names = "--seed", defaultValue = "9", description = "Seed of the fault plan and load.")
  long seed;

  @Option(names = "--work-dir", paramLabel = "DIR",
      description = "Keep configuration, logs, broker data and report.json here (default: a "
          + "temporary directory, deleted after a run that passed).")
  Path workDir;

  @Option(names = "--report-json", paramLabel = "FILE", description = "Also write the report here.")
  Path reportJson;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    ChaosOptions options;
    try {
      options = new ChaosOptions(kills, events, duration, redisRestarts, brokerRestarts, settle,
          maxRetryAfter, seed, workDir, System.getProperty("java.class.path"));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage()); // exit 2, no trace
    }
    ChaosReport report = ChaosRun.run(options, System.out);
    report.print(System.out);
    if (reportJson != null) {
      report.writeJson(reportJson);
    }
    return report.failures().isEmpty() ? 0 : Sluice.FOUND_PROBLEM;
  }
}
