package io.sluice.lab.cli;

import io.sluice.schemas.event.EventLog;
import io.sluice.app.cli.Sluice;
import io.sluice.app.Preflight;
import io.sluice.lab.demo.DemoReport;
import io.sluice.lab.demo.DemoRun;
import io.sluice.lab.demo.Reports;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice demo}: the whole pipeline on embedded servers, with a report. */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Run the whole pipeline on an embedded Kafka broker and a redis-server child "
        + "process (or on the servers --config names) against a mock provider that enforces its "
        + "own rate limit: 3 tiers, 30 tenants, a burst 10x the provider's rate and a few "
        + "malformed events. Shows live progress, then prints a report and writes an HTML "
        + "report with plots. Exits 0 when no event was lost."})
final class DemoCommand implements Callable<Integer> {
  @Option(names = "--duration", defaultValue = "30", paramLabel = "SECONDS",
      description = "How long the load runs, in seconds (default: ${DEFAULT-VALUE}); the demo "
          + "then waits until every event is settled.")
  long durationSeconds;

  @Option(names = "--rate", defaultValue = "50", paramLabel = "PER_SECOND",
      description = "The leak rate; the mock provider allows ceil(rate / 0.96) calls in any second (default: ${DEFAULT-VALUE}).")
  double rate;

  @Option(names = "--report-html", defaultValue = "sluice-demo-report.html", paramLabel = "FILE",
      description = "Where to write the HTML report (default: ${DEFAULT-VALUE}).")
  Path html;

  @Option(names = "--report-json", paramLabel = "FILE",
      description = "Also write the figures as JSON.")
  Path json;

  @Option(names = {"-c", "--config"}, paramLabel = "FILE",
      description = "Use the Kafka and Redis this config names instead of embedded ones.")
  Path config;

  @Override
  public Integer call() throws Exception {
    // The demo prints its own figures: the event lines (one per event) are written at DEBUG,
    // shown only if sluice.events is turned to DEBUG (docs/operations.md, "Logs").
    EventLog.writeAt("DEBUG");
    if (durationSeconds < 4) {
      System.err.println("--duration must be at least 4 seconds, got " + durationSeconds);
      return Sluice.BAD_INPUT;
    }
    SluiceConfig external = null;
    if (config != null) {
      external = ConfigLoader.load(config, System.getenv());
      Preflight.kafka(external);
      Preflight.redis(external);
    }
    DemoReport report = DemoRun.run(new DemoRun.Options(Duration.ofSeconds(durationSeconds),
        rate, external, System.out));
    Reports.write(report, html, json, System.out);
    return report.lost() == 0 ? 0 : Sluice.FOUND_PROBLEM;
  }
}
