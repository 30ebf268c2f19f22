package io.sluice.app.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The test's handle on a {@link DispatcherChild} process: start it, watch it, SIGKILL it. */
final class ChildDispatcher implements AutoCloseable {
  private final String name;
  private final Process process;
  private final AtomicInteger assigned = new AtomicInteger(-1);

  private ChildDispatcher(String name, Process process) {
    this.name = name;
    this.process = process;
    Thread reader = new Thread(this::readReports, name + "-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code java -cp <the test classpath> DispatcherChild yaml env...}; its standard error
   * goes to {@code target/<name>.log}.
   */
  static ChildDispatcher start(String name, String yaml, Map<String, String> env)
      throws IOException {
    Path dir = Path.of("target", "child-dispatchers");
    Files.createDirectories(dir);
    Path config = dir.resolve(name + ".yaml");
    Files.writeString(config, yaml);
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:TieredStopAtLevel=1",
        // As the jar sets it (JvmDefaults): answers handed to the common pool's two workers, not
        // to a thread each.
        "-Djava.util.concurrent.ForkJoinPool.common.parallelism=2",
        "-cp", System.getProperty("java.class.path"),
        DispatcherChild.class.getName(), config.toString()));
    env.forEach((k, v) -> command.add(k + "=" + v));
    Process p = new ProcessBuilder(command)
        .redirectError(dir.resolve(name + ".log").toFile())
        .start();
    return new ChildDispatcher(name, p);
  }

  /** Ready partitions the child owns, as it last reported; -1 before its first report. */
  int assigned() {
    return assigned.get();
  }

  /** The child's process id (for {@code jstack}). */
  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL, and wait for the process to be gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError(name + " survived SIGKILL");
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }

  @Override
  public String toString() {
    return name + "(pid " + process.pid() + ")";
  }

  private void readReports() {
    try (BufferedReader r = new BufferedReader(
        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (line.startsWith("assigned=")) {
          assigned.set(Integer.parseInt(line.substring("assigned=".length()).trim()));
        }
      }
    } catch (IOException | NumberFormatException e) {
      // the child is gone
    }
  }
}
