package io.sluice.lab.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.CliRun;
import io.sluice.embedded.RedisServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@code sluice demo --duration 8}, in this JVM, as a user runs it: its own Kafka broker and
 * redis-server, the mock provider with its own rate limit, every role, the load with a burst and
 * malformed events, then the reconciliation and the report. Run once for the class; each test
 * checks one promise of the report (the figures come from the JSON it wrote), and one that the
 * demo stopped the servers it started.
 */
@Isolated
class DemoIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  static Path dir;

  private static CliRun run;
  private static JsonNode report;
  private static Set<Long> redisBefore;
  private static Set<Long> redisAfter;

  @BeforeAll
  static void runTheDemo() throws Exception {
    redisBefore = redisServerChildren();
    Path json = dir.resolve("r.json");
    Path html = dir.resolve("r.html");
    run = CliRun.of("demo", "--duration", "8", "--report-json", json.toString(),
        "--report-html", html.toString());
    redisAfter = redisServerChildren();
    assertEquals(0, run.exitCode(), "the demo failed:\n" + run.output());
    report = JSON.readTree(Files.readString(json));
    assertTrue(Files.size(html) > 0, "no HTML report at " + html);
  }

  @Test
  @DisplayName("no event is lost: every produced event is delivered or dead-lettered")
  void nothingLost() {
    long produced = report.get("produced").asLong();
    assertTrue(produced > 0, "nothing was produced");
    assertEquals(0, report.get("lost").asLong(), "lost ids: " + report.get("lostIds"));
    assertEquals(produced, report.get("delivered").asLong() + report.get("deadLettered").asLong());
  }

  @Test
  @DisplayName("the provider never answers 429: the dispatcher keeps to its rate")
  void noProvider429() {
    assertEquals(0, report.get("provider429").asLong(), "timeline: " + report.get("timeline"));
  }

  @Test
  @DisplayName("while backlogged, the achieved leak rate is within 2% of the configured rate")
  void leakRateWithinTwoPercent() {
    double configured = report.get("configuredLeakRate").asDouble();
    double achieved = report.get("achievedLeakRate").asDouble();
    double error = achieved / configured - 1;
    assertTrue(Math.abs(error) <= 0.02, String.format(
        "achieved %.3f/s against %.1f/s configured (%+.2f%%) over %.1f s backlogged",
        achieved, configured, 100 * error, report.get("saturatedSeconds").asDouble()));
  }

  @Test
  @DisplayName("the malformed events are dead-lettered as invalid, expired and unknown_provider")
  void deadLettersByReason() {
    JsonNode reasons = report.get("deadLettersByReason");
    for (String reason : List.of("invalid", "expired", "unknown_provider")) {
      assertTrue(reasons.path(reason).asLong() > 0, "no " + reason + " in " + reasons);
    }
  }

  @Test
  @DisplayName("every tier gets provider calls")
  void everyTierIsCalled() {
    JsonNode calls = report.get("callsByTier");
    for (String tier : List.of("enterprise", "pro", "free")) {
      assertTrue(calls.path(tier).asLong() > 0, "no calls for " + tier + " in " + calls);
    }
  }

  @Test
  @DisplayName("the demo stops the redis-server it started")
  void redisServerStopped() {
    // The check must be able to see one: a redis-server started here is found, then gone.
    try (RedisServerProcess control = RedisServerProcess.start()) {
      assertEquals(redisAfter.size() + 1, redisServerChildren().size(),
          "a redis-server child of this JVM is not recognised");
    }
    Set<Long> left = redisAfter.stream().filter(pid -> !redisBefore.contains(pid))
        .collect(Collectors.toSet());
    assertTrue(left.isEmpty(), "redis-server processes left running by the demo: " + left);
  }

  @Test
  @DisplayName("the text report is printed")
  void printsTheTextReport() {
    assertTrue(run.out().contains("=== Sluice demo report ==="), run.output());
    assertTrue(run.out().contains("lost 0"), run.output());
  }

  /**
   * Process ids of the redis-server processes descending from this JVM. The executable is not
   * enough to tell: on Debian redis-server is a link to redis-check-rdb, which is what the
   * process's executable resolves to; its command line (which Redis rewrites to
   * "redis-server host:port") still names it.
   */
  private static Set<Long> redisServerChildren() {
    return ProcessHandle.current().descendants()
        .filter(p -> p.info().commandLine().orElse("").contains("redis-server")
            || p.info().command().map(c -> c.endsWith("/redis-server")
                || c.endsWith("/redis-check-rdb")).orElse(false))
        .map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }
}
