package io.sluice.app.cli;

import io.sluice.app.Preflight;
import io.sluice.app.trace.EventTrace;
import io.sluice.app.trace.Journey;
import io.sluice.app.trace.TopicSearch;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.validation.EventValidator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice trace ID}: one event's journey through the topics. */
@Command(name = "trace", mixinStandardHelpOptions = true,
    description = "Show every stage one event passed, read back from the topics: produced, "
        + "admitted or deferred and why, each settlement, the outcome or dead letter. Bounded: "
        + "records from --since ago, at most --max-records read; exit 1 when none is found.")
final class TraceCommand implements Callable<Integer> {
  /** Longest look back: a topic keeps its work records a week ({@code Topics.WORK_RETENTION}). */
  static final Duration MAX_SINCE = Duration.ofDays(30);

  @Mixin
  ConfigOption config;

  @Parameters(index = "0", paramLabel = "ID", description = "The event's id.")
  String id;

  @Option(names = "--since", defaultValue = "PT24H", paramLabel = "DURATION",
      description = "How far back to look, ISO-8601 (default: ${DEFAULT-VALUE}; at most P30D).")
  Duration since;

  @Option(names = "--max-records", defaultValue = "5000000",
      description = "Most records read in all (default: ${DEFAULT-VALUE}).")
  long maxRecords;

  @Option(names = "--timeout-seconds", defaultValue = "60",
      description = "Longest the search may take (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(names = "--json", description = "Print the stages as JSON.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    // The same rule as the event contract's (and GET /admin/events/{id}): an id no event can have
    // is said at once, not searched for through every topic.
    String problem = id == null ? "an ID is required" : EventValidator.idProblem(id);
    if (problem != null) {
      System.err.println("sluice trace: " + problem);
      return Sluice.BAD_INPUT;
    }
    if (since.isNegative() || since.isZero() || since.compareTo(MAX_SINCE) > 0
        || maxRecords < 1 || timeoutSeconds < 1) {
      System.err.println("sluice trace: --since must be between 1 ms and P30D, --max-records and "
          + "--timeout-seconds at least 1");
      return Sluice.BAD_INPUT;
    }
    SluiceConfig c = config.load();
    Preflight.kafka(c);
    EventTrace.Report report = EventTrace.trace(c, id,
        new TopicSearch.Bounds(since, maxRecords, Duration.ofSeconds(timeoutSeconds)),
        System.currentTimeMillis());
    List<Journey.Stage> stages = report.stages();
    if (json) {
      System.out.println(Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(
          EventTrace.json(report)));
    } else {
      for (Journey.Stage s : stages) {
        System.out.printf("%s  %-28s %s%s%n", s.at(), s.where(), s.what(),
            s.details().isEmpty() ? "" : "  " + s.details());
      }
      System.out.printf("%d records of %s found among %d read from %s ago%s%n", stages.size(), id,
          report.recordsRead(), since, report.bounded() ? "; a bound stopped the search "
              + "(--max-records, --timeout-seconds): older or later records may be missing" : "");
    }
    return stages.isEmpty() ? Sluice.FOUND_PROBLEM : 0;
  }
}
