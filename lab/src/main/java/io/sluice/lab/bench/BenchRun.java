package io.sluice.lab.bench;

import io.sluice.embedded.InJvmKafkaBroker;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice bench}: runs the chosen scenarios one after another on one Kafka and one Redis
 * (embedded: a KRaft broker in this JVM and a redis-server child process; or the ones a config
 * names), then writes bench.json, bench.md and the plots, and optionally regenerates the figures
 * section of BENCHMARKS.md.
 */
public final class BenchRun {
  /** Every scenario, in the order of issue 10. */
  static final List<BenchScenario> SCENARIOS = List.of(new GateScenario(), new ScalingScenario(),
      new LimiterScenario(), new RedisCallsScenario(), new LeakScenario(),
      new FairnessScenario(), new AmplificationScenario(), new RelayScenario(),
      new LatencyScenario(), new LearnedLimitsScenario(), new CredentialsScenario(),
      new DispatchScenario());

  /**
   * @param scenarios names to run, empty for all
   * @param external  the servers to use (its kafka.bootstrap and redis.uri), null for embedded
   * @param markdown  a document whose generated section to replace (BENCHMARKS.md), or null
   * @param command   the command line, as the report states it
   */
  public record Options(List<String> scenarios, boolean quick, SluiceConfig external, Path out,
      Path markdown, String command) {}

  private BenchRun() {}

  public static List<String> names() {
    return SCENARIOS.stream().map(BenchScenario::name).toList();
  }

  /** Runs and writes the reports; returns true when every scenario ran (targets aside). */
  public static boolean run(Options options, PrintStream out) throws Exception {
    List<BenchScenario> chosen = SCENARIOS.stream()
        .filter(s -> options.scenarios().isEmpty() || options.scenarios().contains(s.name()))
        .toList();
    List<AutoCloseable> servers = new ArrayList<>();
    List<ScenarioResult> results = new ArrayList<>();
    boolean allRan = true;
    long start = System.nanoTime();
    Map<String, Object> facts = new LinkedHashMap<>();
    try {
      String bootstrap;
      String redisUri;
      String where;
      if (options.external() == null) {
        out.println("bench: starting a Kafka broker in this JVM and a redis-server child process");
        InJvmKafkaBroker kafka = InJvmKafkaBroker.start();
        servers.add(kafka);
        RedisServerProcess redis = RedisServerProcess.start();
        servers.add(redis);
        bootstrap = kafka.bootstrapServers();
        redisUri = redis.uri();
        where = "embedded: a KRaft broker in the bench's JVM and a redis-server child process";
      } else {
        bootstrap = options.external().kafka().bootstrap();
        redisUri = options.external().redis().uri();
        where = "given by --config: Kafka " + bootstrap + ", Redis "
            + options.external().redis().redactedUri();
      }
      try (RedisProbe probe = new RedisProbe(redisUri)) {
        facts.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        facts.put("command", "`" + options.command() + "`");
        facts.put("commit", commit());
        facts.put("machine", machine());
        facts.put("JDK", System.getProperty("java.vm.name") + " "
            + System.getProperty("java.runtime.version"));
        facts.put("servers", where + "; Redis " + redisVersion(probe)
            + "; every role in the bench's JVM");
        facts.put("mode", options.quick() ? "--quick (tiny sizes: a smoke test, not figures)"
            : "full");
        BenchContext ctx = new BenchContext(bootstrap, redisUri, probe, options.quick(), out);
        for (BenchScenario s : chosen) {
          out.printf("bench: --- %s ---%n", s.name());
          long began = System.nanoTime();
          ScenarioResult r;
          try {
            r = s.run(ctx);
          } catch (Exception | AssertionError e) {
            allRan = false;
            out.printf("bench: %s failed: %s%n", s.name(), e);
            e.printStackTrace(out);
            r = new ScenarioResult(s.name(), "failed").row("failed", "error", e.toString());
          }
          r.seconds((System.nanoTime() - began) / 1e9);
          out.printf(Locale.ROOT, "bench: %s took %.0f s%n", s.name(), r.seconds());
          results.add(r);
        }
      }
    } finally {
      for (int i = servers.size() - 1; i >= 0; i--) {
        try {
          servers.get(i).close();
        } catch (Exception e) {
          out.println("bench: stopping " + servers.get(i) + " failed: " + e);
        }
      }
    }
    facts.put("duration", String.format(Locale.ROOT, "%.0f s",
        (System.nanoTime() - start) / 1e9));
    BenchReport report = new BenchReport(facts, results);
    report.write(options.out());
    out.println("bench: wrote " + options.out().resolve("bench.json") + " and "
        + options.out().resolve("bench.md"));
    if (options.markdown() != null) {
      report.regenerate(options.markdown());
      out.println("bench: regenerated the figures section of " + options.markdown());
    }
    out.println();
    out.print(report.markdown(""));
    return allRan;
  }

  /** CPU model, cores, memory and OS, as far as this machine says. */
  static String machine() {
    String cpu = "unknown CPU";
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8)) {
        if (line.startsWith("model name")) {
          cpu = line.substring(line.indexOf(':') + 1).trim();
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the model stays unknown
    }
    long memory = 0;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"), StandardCharsets.UTF_8)) {
        if (line.startsWith("MemTotal:")) {
          memory = Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024 / 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return String.format(Locale.ROOT, "%s, %d cores, %s, %s %s", cpu,
        Runtime.getRuntime().availableProcessors(), memory > 0 ? memory + " GB RAM" : "RAM unknown",
        System.getProperty("os.name"), System.getProperty("os.arch"));
  }

  /** {@code git describe} of the working directory: the commit, "-dirty" if changed. */
  static String commit() {
    try {
      Process git = new ProcessBuilder("git", "describe", "--always", "--dirty", "--abbrev=12")
          .redirectErrorStream(true).start();
      String text = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 && !text.isEmpty()) {
        return text;
      }
    } catch (IOException e) {
      // no git here
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "unknown (not run from a git checkout)";
  }

  private static String redisVersion(RedisProbe probe) {
    for (String line : probe.commands().info("server").split("\r?\n")) {
      if (line.startsWith("redis_version:")) {
        return line.substring("redis_version:".length()).trim();
      }
    }
    return "unknown";
  }
}
