package io.sluice.dispatcher.app.cli;

import io.sluice.dispatcher.bench.FairnessBench;
import io.sluice.dispatcher.bench.GateBench;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice bench gate|fairness}: the benchmarks, on embedded servers. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Benchmarks on embedded Kafka and Redis.",
        "  gate [events] [tenants] [threads]: gate throughput next to a bare pass-through "
            + "topology, and Redis calls per event (default 100000 1000 2).",
        "  fairness: the fair queue alone, 3 tiers 8:4:1 and 30 tenants, 1,000,000 polls."})
final class BenchCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "WHICH", description = "gate or fairness")
  String which;

  @Parameters(index = "1..*", paramLabel = "ARGS", description = "The benchmark's arguments.")
  List<String> args = List.of();

  @Override
  public Integer call() throws Exception {
    String[] rest = args.toArray(String[]::new);
    switch (which) {
      case "gate" -> GateBench.main(rest);
      case "fairness" -> FairnessBench.main(rest);
      default -> {
        System.err.println("unknown benchmark \"" + which + "\": expected gate or fairness");
        return Sluice.BAD_INPUT;
      }
    }
    return 0;
  }
}
