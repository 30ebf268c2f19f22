package io.sluice.app.it;

import io.sluice.embedded.KafkaBroker;
import io.sluice.embedded.StandaloneKafkaBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * A Kafka broker as an OS process of its own ({@link StandaloneKafkaBroker}), for a test that
 * SIGKILLs it and starts it again on the same port with the same logs, the way a broker host
 * fails. The shared test broker cannot be killed: other tests use it.
 */
final class BrokerProcess implements KafkaBroker {
  private static final Duration READY = Duration.ofSeconds(120);

  private final Path directory;
  private final int port;
  private final int controllerPort;
  private Process process;

  private BrokerProcess(Path directory, int port, int controllerPort) {
    this.directory = directory;
    this.port = port;
    this.controllerPort = controllerPort;
  }

  /** Starts a broker in a new directory under {@code target/} and waits until it answers. */
  static BrokerProcess start(String name) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target", "brokers")),
        name + "-");
    BrokerProcess broker = new BrokerProcess(dir, freePort(), freePort());
    broker.startAgain();
    return broker;
  }

  @Override
  public String bootstrapServers() {
    return "localhost:" + port;
  }

  /** SIGKILL: no shutdown, no flush; the logs stay for {@link #startAgain}. */
  void kill() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError("the broker survived SIGKILL");
      }
    }
  }

  /** Starts the broker on its port and logs, and waits until an admin client lists topics. */
  void startAgain() throws IOException, InterruptedException {
    List<String> command = List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m", "-cp", System.getProperty("java.class.path"),
        StandaloneKafkaBroker.class.getName(), directory.toString(), Integer.toString(port),
        Integer.toString(controllerPort));
    process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("broker.log").toFile()))
        .start();
    long deadline = System.nanoTime() + READY.toNanos();
    while (true) {
      try (Admin admin = Admin.create(Map.of(
          AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
          AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000,
          AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000))) {
        admin.listTopics().names().get(3, TimeUnit.SECONDS);
        return;
      } catch (Exception notYet) {
        if (!process.isAlive() || System.nanoTime() > deadline) {
          throw new IllegalStateException("the broker did not start; see "
              + directory.resolve("broker.log"), notYet);
        }
      }
    }
  }

  @Override
  public void close() {
    try {
      kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
