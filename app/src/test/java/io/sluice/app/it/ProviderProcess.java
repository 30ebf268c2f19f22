package io.sluice.app.it;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.sluice.embedded.mock.MockProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A strict {@link MockProvider} in a JVM of its own ({@link MockProvider#main}): the provider's
 * view of arrival times, untouched by the collector pauses of the JVM that runs the broker and the
 * dispatchers. Its {@code atNanos} compare with this process's {@code System.nanoTime()} (Linux:
 * CLOCK_MONOTONIC in both).
 */
final class ProviderProcess implements AutoCloseable {
  private final Process process;
  private final BufferedReader out;
  private final URI url;

  private ProviderProcess(Process process) throws IOException {
    this.process = process;
    this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8));
    String first = out.readLine();
    if (first == null || !first.startsWith("url ")) {
      process.destroyForcibly();
      throw new IllegalStateException("the provider process did not start: " + first);
    }
    this.url = URI.create(first.substring(4));
  }

  /** A provider allowing {@code callsPerSecond} calls in any sliding second, no burst. */
  static ProviderProcess strict(int callsPerSecond) throws IOException {
    return withOptions(Integer.toString(callsPerSecond));
  }

  /**
   * A provider started with {@link MockProvider}'s command line, e.g. {@code "--limit", "20/1s",
   * "--cost-limit", "5000/60s", "--announce", "ietf"}.
   */
  static ProviderProcess withOptions(String... options) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    // A small heap and the serial collector: the judge itself must not pause.
    List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC",
        "-cp", System.getProperty("java.class.path"), MockProvider.class.getName()));
    command.addAll(List.of(options));
    return new ProviderProcess(new ProcessBuilder(command)
        .redirectError(ProcessBuilder.Redirect.INHERIT).start());
  }

  URI url() {
    return url;
  }

  /** Every call so far, in arrival order (time, status and idempotency key only). */
  synchronized List<MockProvider.Call> calls() {
    try {
      return readCalls();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private List<MockProvider.Call> readCalls() throws IOException {
    OutputStream in = process.getOutputStream();
    in.write("calls\n".getBytes(UTF_8));
    in.flush();
    List<MockProvider.Call> calls = new ArrayList<>();
    for (String line = out.readLine(); !"end".equals(line); line = out.readLine()) {
      if (line == null) {
        throw new IOException("the provider process ended");
      }
      String[] f = line.split(" ", 3);
      calls.add(new MockProvider.Call(Long.parseLong(f[0]), 0, null, f[2], Map.of(), new byte[0],
          Integer.parseInt(f[1])));
    }
    return calls;
  }

  /** The next call gets this answer, before the limit is looked at. */
  synchronized void answerNext(int status, String retryAfter) throws IOException {
    OutputStream in = process.getOutputStream();
    in.write(("next " + status + " " + retryAfter + "\n").getBytes(UTF_8));
    in.flush();
    if (!"ok".equals(out.readLine())) {
      throw new IOException("the provider process did not take the answer");
    }
  }

  /** 429s the provider answered on its own (beyond scripted ones: the caller knows those). */
  long statusCount(int status) {
    return calls().stream().filter(c -> c.status() == status).count();
  }

  synchronized int callCount() {
    try {
      OutputStream in = process.getOutputStream();
      in.write("count\n".getBytes(UTF_8));
      in.flush();
      String line = out.readLine();
      if (line == null) {
        throw new IOException("the provider process ended");
      }
      return Integer.parseInt(line.trim());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
