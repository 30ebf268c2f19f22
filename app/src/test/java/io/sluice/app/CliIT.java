package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.embedded.KafkaBroker;
import io.sluice.testkit.RealServers;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The command line as a user meets it: help for every command, and the exit codes and messages
 * for a bad config (2) and a server that is not there (3). Only the last test needs a server
 * (the shared Kafka broker, to show that Redis is the one named missing).
 */
@ExtendWith(RealServers.class)
class CliIT {
  @TempDir
  Path dir;

  @ParameterizedTest(name = "sluice {0} --help")
  @ValueSource(strings = {"run", "gate", "relay", "dispatch", "topics", "produce", "verify"})
  @DisplayName("every command's --help exits 0 and prints its usage")
  void helpOfEveryCommand(String command) {
    CliRun run = CliRun.of(command, "--help");

    assertEquals(0, run.exitCode(), run.output());
    assertTrue(run.out().contains("Usage: sluice " + command), run.output());
  }

  @ParameterizedTest(name = "sluice {0}")
  @ValueSource(strings = {"demo", "bench", "chaos"})
  @DisplayName("the lab's commands are not in the application: unknown, exit 2")
  void labCommandsAreNotInTheApplication(String command) {
    CliRun run = CliRun.of(command);

    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.err().contains("Unmatched argument"), run.output());
  }

  @Test
  @DisplayName("a config with a bad field exits 2 with a message naming the field")
  void badConfigExitsTwoNamingTheField() throws IOException {
    Path config = dir.resolve("bad.yaml");
    // Kafka and Redis point at closed ports: were the config accepted, the command would fail
    // fast with 3 instead of running.
    Files.writeString(config, """
        kafka: { bootstrap: "127.0.0.1:1" }
        redis: { uri: "redis://127.0.0.1:1" }
        tiers: { free: { weight: 1 } }
        defaultTier: free
        providers:
          payments-api:
            url: "http://127.0.0.1:1/hooks"
            rate: "fast"
            quotas:
              free: { capacity: 10, refill: 1/s }
        """);

    CliRun run = CliRun.of("run", "--config", config.toString());

    assertEquals(2, run.exitCode(), run.output());
    assertTrue(run.err().contains("providers.payments-api.rate"), run.output());
    assertTrue(!run.err().contains("\tat "), "a message, not a stack trace: " + run.output());
  }

  @Test
  @DisplayName("topics check with Kafka not there exits 3 within 20 s, saying what to start")
  void unreachableKafkaExitsThree() throws IOException {
    AppConfigFile config = AppConfigFile.write(dir, "127.0.0.1:" + closedPort(),
        "redis://127.0.0.1:" + closedPort(), URI.create("http://127.0.0.1:1/"), Map.of());
    long start = System.nanoTime();

    CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(30),
        () -> CliRun.of("topics", "check", "--config", config.file().toString()));

    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertEquals(3, run.exitCode(), run.output());
    assertTrue(run.err().contains("Kafka is not reachable"), run.output());
    assertTrue(run.err().contains("Start a broker"), run.output());
    assertTrue(took.compareTo(Duration.ofSeconds(20)) < 0, "took " + took);
  }

  @Test
  @DisplayName("run with Kafka there and Redis not exits 3 with a message about Redis")
  void unreachableRedisExitsThree(KafkaBroker kafka) throws IOException {
    int redisPort = closedPort();
    AppConfigFile config = AppConfigFile.write(dir, kafka.bootstrapServers(),
        "redis://127.0.0.1:" + redisPort, URI.create("http://127.0.0.1:1/"), Map.of());

    // Bounded: were Redis (wrongly) accepted, run would serve until stopped.
    CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(30),
        () -> CliRun.of("run", "--config", config.file().toString()));

    assertEquals(3, run.exitCode(), run.output());
    assertTrue(run.err().contains("Redis is not reachable at redis://127.0.0.1:" + redisPort),
        run.output());
    assertTrue(!run.err().contains("Kafka is not reachable"), run.output());
  }

  /** A port nothing listens on: one the OS just handed out, closed again. */
  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
