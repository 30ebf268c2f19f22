package io.sluice.app.cli;

import io.sluice.app.Preflight;
import io.sluice.app.TopicAdmin;
import io.sluice.config.SluiceConfig;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice topics create|check}. */
@Command(name = "topics", mixinStandardHelpOptions = true,
    description = "Create Sluice's topics (create), or check that they all exist (check).")
final class TopicsCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "ACTION", description = "create or check")
  String action;

  @Mixin
  ConfigOption config;

  @Option(names = "--partitions", defaultValue = "6",
      description = "Partitions of each topic (default: ${DEFAULT-VALUE}).")
  int partitions;

  @Option(names = "--replicas", defaultValue = "1",
      description = "Replication factor (default: ${DEFAULT-VALUE}; use 3 in production).")
  short replicas;

  @Override
  public Integer call() throws Exception {
    SluiceConfig c = config.loadForOperator();
    Preflight.kafka(c);
    try (TopicAdmin admin = new TopicAdmin(c)) {
      switch (action) {
        case "create" -> {
          List<String> created = admin.create(partitions, replicas);
          System.out.println(created.isEmpty() ? "all topics exist already"
              : "created " + String.join(", ", created));
          return 0;
        }
        case "check" -> {
          Set<String> missing = admin.missing();
          if (missing.isEmpty()) {
            System.out.println("all topics exist");
            return 0;
          }
          System.out.println("missing: " + String.join(", ", missing));
          return Sluice.FOUND_PROBLEM;
        }
        default -> {
          System.err.println("unknown action \"" + action + "\": expected create or check");
          return Sluice.BAD_INPUT;
        }
      }
    }
  }
}
