package io.sluice.app.cli;

import io.sluice.app.Preflight;
import io.sluice.app.Verify;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sluice verify}: did every inbound event end somewhere? */
@Command(name = "verify", mixinStandardHelpOptions = true,
    description = "Reconcile the inbound ids against outcomes and dead letters; print the counts "
        + "and the missing ids; exit 1 when any are missing.")
final class VerifyCommand implements Callable<Integer> {
  @Mixin
  ConfigOption config;

  @Option(names = "--timeout-seconds", defaultValue = "60",
      description = "How long reading each topic may take (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(names = "--show", defaultValue = "50",
      description = "Missing ids to print at most (default: ${DEFAULT-VALUE}).")
  int show;

  @Override
  public Integer call() {
    SluiceConfig c = config.load();
    Preflight.kafka(c);
    Topics topics = new Topics(c.kafka().topicPrefix(), c.ladder());
    Verify.Report r = Verify.run(c.kafka(), topics,
        Duration.ofSeconds(timeoutSeconds));
    System.out.printf("inbound records %d, unique ids %d, delivered %d, dead-lettered %d %s, "
            + "missing %d%n", r.inbound(), r.uniqueIds(), r.delivered(), r.deadLettered(),
        r.deadByReason(), r.missing().size());
    r.missing().stream().limit(show).forEach(id -> System.out.println("missing: " + id));
    if (r.missing().size() > show) {
      System.out.println("... and " + (r.missing().size() - show) + " more");
    }
    return r.complete() ? 0 : Sluice.FOUND_PROBLEM;
  }
}
