package io.sluice.app.cli;

import io.sluice.app.AskedKey;
import io.sluice.app.AskedPriority;
import io.sluice.app.AskedTime;
import io.sluice.app.Preflight;
import io.sluice.app.Produce;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice produce}: JSON lines to sluice.inbound. */
@Command(name = "produce", mixinStandardHelpOptions = true,
    description = "Write work events, one JSON object per line, to the inbound topic (keyed by "
        + "tenant). Reads standard input unless --file is given.")
final class ProduceCommand implements Callable<Integer> {
  @Mixin
  ConfigOption config;

  @Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = {"-f", "--file"}, paramLabel = "FILE", description = "JSON lines to send.")
  Path file;

  @Option(names = "--deliver-at", paramLabel = "INSTANT", description = "Add deliverAt (an instant like "
      + "2030-01-01T09:00:00Z) to each event that asks for no time: never called before it, on Redis's clock; "
      + "at most the provider's maxDelay ahead.")
  String deliverAt;

  @Option(names = "--delay", paramLabel = "WAIT", description = "Add delay (90s, 10m, 2h, 1d) to each event "
      + "that asks for no time: never called before that long after the gate first sees it.")
  String delay;

  @Option(names = "--ordering-key", paramLabel = "KEY", description = "Add orderingKey (1 to 128 of "
      + "A-Z a-z 0-9 . _ : / -) to each event that names none: with a provider's ordering: perKey, the "
      + "events of one key are called one at a time, in the order sent.")
  String orderingKey;
  @Option(names = "--priority", paramLabel = "CLASS", description = "Add priority (high, normal or low) "
      + "to each event that names no class: the order of its tenant's own events, never its share.")
  String priority;

  @Override
  public Integer call() throws Exception {
    AskedTime time;
    AskedKey key;
    AskedPriority asked;
    try {
      time = AskedTime.of(deliverAt, delay);
      key = AskedKey.of(orderingKey);
      asked = AskedPriority.of(priority);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    SluiceConfig c = config.loadForOperator();
    Preflight.kafka(c);
    Topics topics = new Topics(c.kafka().topicPrefix(), c.ladder());
    try (BufferedReader in = file == null
        ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
        : Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      Produce.Result r = Produce.lines(c.kafka(), topics, in,
          line -> asked.applyTo(key.applyTo(time.applyTo(line))));
      System.out.println("sent " + r.sent() + " events to " + topics.inbound()
          + (r.unkeyed() > 0 ? " (" + r.unkeyed() + " without a readable tenant: the gate will "
          + "dead-letter them with a reason)" : ""));
    }
    return 0;
  }
}
