package io.sluice.lab.cli;

import io.sluice.schemas.event.EventLog;
import io.sluice.app.cli.Sluice;
import io.sluice.app.Preflight;
import io.sluice.lab.bench.BenchRun;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice bench [scenario...]}: the benchmarks of issue 10, into bench.json and Markdown. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Run the benchmarks on an embedded Kafka broker and redis-server (or the "
        + "servers --config names) and write bench.json, bench.md (Markdown tables) and SVG "
        + "plots. Scenarios (all when none is named): gate, scaling, limiter, calls, leak, "
        + "fairness, amplification, relay, latency, learned-limits, credentials, dispatch. Exits 0 when every scenario ran, whether or "
        + "not its targets were met."})
final class BenchCommand implements Callable<Integer> {
  @Parameters(paramLabel = "SCENARIO", arity = "0..*",
      description = "Scenarios to run (default: all).")
  List<String> scenarios = new ArrayList<>();

  @Option(names = "--quick", description = "Tiny sizes: every scenario in about a minute, for "
      + "the smoke test; the figures mean nothing.")
  boolean quick;

  @Option(names = {"-c", "--config"}, paramLabel = "FILE",
      description = "Use the Kafka and Redis this config names instead of embedded ones.")
  Path config;

  @Option(names = "--out", defaultValue = "bench-results", paramLabel = "DIR",
      description = "Where to write bench.json, bench.md and the plots (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(names = "--markdown", paramLabel = "FILE",
      description = "Also replace the generated section of this document (BENCHMARKS.md) with "
          + "the results, and write its plots into bench/ beside it.")
  Path markdown;

  @Override
  public Integer call() throws Exception {
    // A benchmark must not measure a console: the event lines (one per event) are written at DEBUG,
    // shown only if sluice.events is turned to DEBUG (docs/operations.md, "Logs").
    EventLog.writeAt("DEBUG");
    List<String> unknown = new ArrayList<>(scenarios);
    unknown.removeAll(BenchRun.names());
    if (!unknown.isEmpty()) {
      System.err.println("unknown scenario(s) " + unknown + ": expected some of "
          + BenchRun.names());
      return Sluice.BAD_INPUT;
    }
    SluiceConfig external = null;
    if (config != null) {
      external = ConfigLoader.load(config, System.getenv());
      Preflight.kafka(external);
      Preflight.redis(external);
    }
    List<String> words = new ArrayList<>(List.of("java -jar lab/target/sluice-lab.jar bench"));
    words.addAll(scenarios);
    if (quick) {
      words.add("--quick");
    }
    if (config != null) {
      words.add("--config " + config);
    }
    if (markdown != null) {
      words.add("--markdown " + markdown);
    }
    boolean ran = BenchRun.run(new BenchRun.Options(List.copyOf(scenarios), quick, external, out,
        markdown, String.join(" ", words)), System.out);
    return ran ? 0 : Sluice.FOUND_PROBLEM;
  }
}
