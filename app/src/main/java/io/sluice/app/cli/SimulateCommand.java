package io.sluice.app.cli;

import io.sluice.app.simulate.Arrivals;
import io.sluice.app.simulate.RecordedEvents;
import io.sluice.app.simulate.ReportHtml;
import io.sluice.app.simulate.ReportJson;
import io.sluice.app.simulate.ReportText;
import io.sluice.app.simulate.Simulation;
import io.sluice.app.simulate.Simulator;
import io.sluice.app.simulate.SyntheticTraffic;
import io.sluice.app.simulate.TopicEvents;
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.config.DelayText;
import io.sluice.config.KafkaConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.schemas.serde.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sluice simulate}: recorded events replayed on a virtual clock through the gate's bucket,
 * the dispatcher's fair queue and leak, for the configuration and candidates side by side
 * ({@link Simulator}). Touches no Redis; reads Kafka only with {@code --from-topic}, in no group.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
    description = "Replay recorded events (JSON lines, each with its arrival time in 'ts'; or a time range "
        + "of the inbound topic; or generated traffic) on a virtual "
        + "clock through the product's own decisions (quota buckets, tiers' fair queue, providers' leak), "
        + "for --config and each --candidate, and report per tenant and tier the lateness (p50, p99, "
        + "max), deadline misses and dead letters, and per provider the most calls in a second against "
        + "its rate, side by side. Provider faults are not modelled: every call succeeds at its slot; the "
        + "pipeline's own delay only as --pipeline-delay.")
final class SimulateCommand implements Callable<Integer> {
  @Mixin
  ConfigOption config;

  @Option(names = "--candidate", paramLabel = "FILE",
      description = "A configuration to try beside --config (repeatable).")
  List<Path> candidates = new ArrayList<>();

  @Option(names = "--events", paramLabel = "FILE",
      description = "The recorded events: one JSON work event a line, with 'ts' (epoch ms or RFC 3339).")
  Path events;

  @Option(names = "--from-topic",
      description = "Instead of --events, read <topicPrefix>inbound from --from to --to (each record's "
          + "timestamp its arrival), partitions merged by time, in no consumer group.")
  boolean fromTopic;

  @Option(names = "--bootstrap", paramLabel = "HOST:PORT",
      description = "With --from-topic: the brokers to read from (default: --config's kafka.bootstrap).")
  String bootstrap;

  @Option(names = "--from", paramLabel = "INSTANT",
      description = "With --from-topic: the first arrival read, RFC 3339 (e.g. 2026-11-28T00:00:00Z).")
  Instant from;

  @Option(names = "--to", paramLabel = "INSTANT",
      description = "With --from-topic: arrivals at or after it are not read (default: now).")
  Instant to;

  @Option(names = "--stall-seconds", defaultValue = "30",
      description = "With --from-topic: longest wait for the broker before the read is given up "
          + "(default: ${DEFAULT-VALUE}).")
  long stallSeconds;

  @Option(names = "--generate", paramLabel = "SPEC",
      description = "Instead of --events, generated traffic: rate=EVENTS_PER_S,tenants=N,span=ISO-8601[,seed=S] "
          + "(tenants t0000.. skewed, tenant i toward the i-th provider modulo their number).")
  String generate;

  @Option(names = "--pipeline-delay", defaultValue = "0s", paramLabel = "DURATION",
      converter = DelayOrIso.class,
      description = "The pipeline's own delay (2500ms, 3s or PT2.5S): how long after its record's time an event reaches "
          + "the gate, and after the time it asked for the relay hands it on (default: ${DEFAULT-VALUE}).")
  Duration pipelineDelay;

  @Option(names = "--threads", paramLabel = "N",
      description = "Threads that simulate, each a share of the providers (default 0: one a processor); "
          + "the input is read on one more.",
      defaultValue = "0")
  int threads;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write the report as JSON here.")
  Path json;

  @Option(names = "--html", paramLabel = "FILE", description = "Also write the report as an HTML page here.")
  Path html;

  @Option(names = "--top", defaultValue = "50",
      description = "Tenants shown in the text and HTML reports, worst first (default: ${DEFAULT-VALUE}; "
          + "the JSON has them all).")
  int top;

  @Option(names = "--max-lines", defaultValue = "200000000",
      description = "Most lines read (default: ${DEFAULT-VALUE}).")
  long maxLines;

  @Option(names = "--max-bytes", defaultValue = "68719476736",
      description = "Largest events file taken, in bytes (default: ${DEFAULT-VALUE}, 64 GiB).")
  long maxBytes;

  @Option(names = "--max-span", defaultValue = "P7D",
      description = "Longest stretch of arrival time read, ISO-8601 (default: ${DEFAULT-VALUE}).")
  Duration maxSpan;

  @Option(names = "--max-tenants", defaultValue = "1000000",
      description = "Most distinct tenants (default: ${DEFAULT-VALUE}).")
  int maxTenants;

  @Override
  public Integer call() throws IOException {
    if (pipelineDelay.isNegative()) {
      System.err.println("sluice simulate: --pipeline-delay cannot be negative");
      return Sluice.BAD_INPUT;
    }
    if (top < 1 || maxLines < 1 || maxBytes < 1 || maxTenants < 1 || maxSpan.isNegative() || maxSpan.isZero()) {
      System.err.println("sluice simulate: --top, --max-lines, --max-bytes, --max-tenants and --max-span "
          + "must be positive");
      return Sluice.BAD_INPUT;
    }
    List<Simulator.Candidate> configs = new ArrayList<>();
    configs.add(new Simulator.Candidate(label(config.file, List.of()), config.loadForOperator()));
    for (Path candidate : candidates) {
      try {
        configs.add(new Simulator.Candidate(label(candidate, configs),
            ConfigLoader.loadForOperator(candidate, System.getenv())));
      } catch (ConfigException e) {
        System.err.println("sluice simulate: candidate " + candidate + ": " + e.getMessage());
        return Sluice.BAD_INPUT;
      }
    }
    int sources = (events == null ? 0 : 1) + (generate == null ? 0 : 1) + (fromTopic ? 1 : 0);
    if (sources != 1) {
      System.err.println("sluice simulate: give one of --events FILE, --from-topic and --generate SPEC");
      return Sluice.BAD_INPUT;
    }
    if (fromTopic) {
      Instant end = to == null ? Instant.now() : to;
      if (from == null || !from.isBefore(end) || Duration.between(from, end).compareTo(maxSpan) > 0
          || stallSeconds < 1) {
        System.err.println("sluice simulate: --from-topic needs --from before --to (default now), at most "
            + "--max-span " + maxSpan + " apart, and --stall-seconds at least 1");
        return Sluice.BAD_INPUT;
      }
      to = end;
    }
    Simulator.Report report;
    try (Arrivals in = arrivals(configs)) {
      report = Simulator.run(configs, in, maxTenants, pipelineDelay,
          threads > 0 ? threads : Runtime.getRuntime().availableProcessors());
    } catch (RecordedEvents.BadInput | Simulation.TooManyTenants | IllegalArgumentException e) {
      System.err.println("sluice simulate: " + e.getMessage());
      return Sluice.BAD_INPUT;
    }
    System.out.print(ReportText.of(report, top));
    if (json != null) {
      Files.writeString(json, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(ReportJson.of(report)));
    }
    if (html != null) {
      Files.writeString(html, ReportHtml.of(report, top));
    }
    return 0;
  }

  private Arrivals arrivals(List<Simulator.Candidate> configs) {
    if (fromTopic) {
      SluiceConfig current = configs.get(0).config();
      KafkaConfig k = current.kafka();
      KafkaConfig read = bootstrap == null ? k
          : new KafkaConfig(bootstrap, k.topicPrefix(), k.properties(), k.sweepHangingTransactions());
      return TopicEvents.open(read, new Topics(k.topicPrefix(), current.ladder()).inbound(), from, to, maxLines,
          Duration.ofSeconds(stallSeconds));
    }
    if (generate != null) {
      SyntheticTraffic.Spec spec = SyntheticTraffic.Spec.parse(generate);
      if (spec.events() > maxLines || spec.span().compareTo(maxSpan) > 0 || spec.tenants() > maxTenants) {
        throw new IllegalArgumentException("--generate " + generate + " is beyond --max-lines, --max-span or --max-tenants");
      }
      return new SyntheticTraffic(spec, new ArrayList<>(new TreeSet<>(configs.get(0).config().providers().keySet())));
    }
    int maxLineBytes = configs.stream().mapToInt(c -> c.config().gate().maxPayloadBytes()).max().orElse(0) + 4096;
    return RecordedEvents.open(events, new RecordedEvents.Bounds(maxBytes, maxLines, maxLineBytes, maxSpan));
  }

  /** A duration as the configuration writes one ({@code 2500ms}, {@code 3s}) or ISO-8601 ({@code PT2.5S}). */
  static final class DelayOrIso implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Duration d = DelayText.parse(value);
      if (d != null) {
        return d;
      }
      try {
        return Duration.parse(value);
      } catch (DateTimeParseException e) {
        throw new TypeConversionException("'" + value + "' is not a duration (2500ms, 3s, PT2.5S)");
      }
    }
  }

  /** A configuration's column: its file's name, or its path where another column has that name. */
  private static String label(Path file, List<Simulator.Candidate> before) {
    String name = String.valueOf(file.getFileName());
    return before.stream().anyMatch(c -> c.label().equals(name)) ? file.toString() : name;
  }
}
