package io.sluice.app.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.sluice.app.Preflight;
import io.sluice.app.dlq.DeadLetterQuery;
import io.sluice.app.dlq.DlqOperations;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice dlq list|replay}: the dead-letter topic for an operator. Exit codes as every
 * command's: 0 done; 1 done but incomplete (reading was cut by the timeout, or a replay stopped
 * at its limit or byte budget: run it again for the rest); 2 a bad filter or config; 3 Kafka
 * unreachable.
 */
@Command(name = "dlq", mixinStandardHelpOptions = true,
    description = "List the dead letters (list), or send them to inbound again (replay).",
    subcommands = {DlqCommand.ListDeadLetters.class, DlqCommand.ReplayDeadLetters.class})
public final class DlqCommand {
  private static final int INCOMPLETE = 1;

  /** The options list and replay share: config, filters, limit, timeout, output. */
  static final class Filters {
    @Mixin
    ConfigOption config;

    @Option(names = "--reason", paramLabel = "R", description = "Only this sluice-reason code.")
    String reason;

    @Option(names = "--provider", paramLabel = "P", description = "Only events for provider P.")
    String provider;

    @Option(names = "--tenant", paramLabel = "T", description = "Only events of tenant T.")
    String tenant;

    @Option(names = "--since", paramLabel = "DURATION",
        description = "Only dead letters of the last 90s, 30m, 1h, 7d... (default: all).")
    String since;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
        description = "At most N dead letters, 1 to 10000 (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--timeout-seconds", paramLabel = "SECONDS", defaultValue = "60",
        description = "How long reading a topic may take, 1 to 3600 (default: ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    @Option(names = "--json", description = "Print one JSON document instead of lines.")
    boolean json;

    @Spec(Spec.Target.MIXEE)
    CommandLine.Model.CommandSpec spec;

    DeadLetterQuery query() {
      try {
        if (timeoutSeconds < 1 || timeoutSeconds > 3600) {
          throw new IllegalArgumentException("--timeout-seconds: expected 1 to 3600; got "
              + timeoutSeconds);
        }
        return DeadLetterQuery.parse(reason, provider, tenant, since, limit);
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }

    /** The file as every command reads it: SLUICE_* overrides, its {@code logging:} applied. */
    SluiceConfig config() {
      return config.loadForOperator();
    }

    SluiceConfig load() {
      SluiceConfig c = config();
      Preflight.kafka(c);
      return c;
    }

    Duration timeout() {
      return Duration.ofSeconds(timeoutSeconds);
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Print the dead letters the filters select, with their reasons; joins no "
          + "consumer group.")
  static final class ListDeadLetters implements Callable<Integer> {
    @Mixin
    Filters f;

    @Override
    public Integer call() {
      DeadLetterQuery q = f.query();
      SluiceConfig c = f.load();
      DlqOperations.Listing l;
      try {
        l = DlqOperations.list(c.kafka(), topics(c), q, Instant.now(), f.timeout());
      } catch (IllegalStateException e) {
        System.err.println(e.getMessage());
        return INCOMPLETE;
      }
      if (f.json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("deadLetters", l.rows());
        doc.put("read", l.read());
        doc.put("timedOut", l.timedOut());
        print(doc);
      } else {
        l.rows().forEach(r -> System.out.println(r.line()));
        System.out.printf("%d dead letters shown (%d records read%s)%n", l.rows().size(),
            l.read(), l.timedOut() ? "; reading stopped at the timeout: narrow with --since" : "");
      }
      return l.timedOut() ? INCOMPLETE : 0;
    }
  }

  @Command(name = "replay", mixinStandardHelpOptions = true,
      description = "Send the selected dead letters' original events to inbound again, through "
          + "the gate, once: what was replayed is recorded, and is not sent again.")
  static final class ReplayDeadLetters implements Callable<Integer> {
    @Mixin
    Filters f;

    @Option(names = "--dry-run", description = "Only print what would be sent.")
    boolean dryRun;

    @Override
    public Integer call() {
      DeadLetterQuery q = f.query();
      SluiceConfig c = f.load();
      DlqOperations.ReplayReport r;
      try {
        r = DlqOperations.replay(c.kafka(), topics(c), q, Instant.now(), f.timeout(), dryRun);
      } catch (IllegalStateException e) {
        System.err.println(e.getMessage());
        return INCOMPLETE;
      } catch (KafkaException e) {
        // A batch not committed is not in the ledger either: running the replay again is safe.
        System.err.println("replay stopped: " + e + ". What was committed is in the ledger; run "
            + "the replay again to send the rest.");
        return INCOMPLETE;
      }
      if (f.json) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put(dryRun ? "wouldSend" : "sent", r.sent());
        doc.put("skipped", r.skipped());
        doc.put("read", r.read());
        doc.put("more", r.full() || r.timedOut());
        print(doc);
      } else {
        r.sent().forEach(row -> System.out.println((dryRun ? "would send " : "sent ")
            + row.line()));
        System.out.printf("%s %d events to %s; skipped %s; %d dead letters read%s%n",
            dryRun ? "would send" : "sent", r.sent().size(), topics(c).inbound(), r.skipped(),
            r.read(), r.full() || r.timedOut() ? "; there may be more: run it again" : "");
      }
      return r.full() || r.timedOut() ? INCOMPLETE : 0;
    }
  }

  private static Topics topics(SluiceConfig c) {
    return new Topics(c.kafka().topicPrefix(), c.ladder());
  }

  private static void print(Object doc) {
    try {
      System.out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
