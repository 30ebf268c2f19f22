package io.sluice.app.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import io.sluice.testkit.NodeTools;

/**
 * An OTLP/HTTP trace receiver in a process of its own, outside the JVM: Node.js running
 * {@code src/test/node/otlp-receiver/receiver.mjs}, which decodes each export with protobufjs and
 * the official opentelemetry-proto files and prints every span as a JSON line, read here.
 *
 * <p>Without {@code node} and {@code npm} on the PATH the test using it is skipped, except under
 * {@code CI=true}, where {@code .ci/run} installs them and a skip would hide a failure.
 */
final class OtlpReceiver implements AutoCloseable {
  private static final Path PROJECT = Path.of("src/test/node/otlp-receiver");
  private static final Path WORK = Path.of("target/otlp-receiver");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final int port;
  private final List<JsonNode> spans = new ArrayList<>();
  private final List<String> errors = new ArrayList<>();

  private OtlpReceiver(Process process, int port, BufferedReader out) {
    this.process = process;
    this.port = port;
    Thread reader = new Thread(() -> read(out), "otlp-receiver-out");
    reader.setDaemon(true);
    reader.start();
  }

  /** Installs the receiver's one dependency (once) and starts it on a free port. */
  static OtlpReceiver start() throws Exception {
    NodeTools.require("the OTLP receiver outside the JVM");
    copy(PROJECT, WORK);
    if (!Files.isDirectory(WORK.resolve("node_modules/protobufjs"))) {
      Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
          .directory(WORK.toFile()).redirectErrorStream(true).start();
      String out = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(npm.waitFor(180, TimeUnit.SECONDS), "npm ci did not end within 180 s");
      assertEquals(0, npm.exitValue(), "npm ci failed:\n" + out);
    }
    Process p = new ProcessBuilder("node", "receiver.mjs").directory(WORK.toFile())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String first = out.readLine();
    if (first == null || !first.startsWith("listening ")) {
      p.destroyForcibly();
      throw new AssertionError("the receiver did not start: " + first);
    }
    return new OtlpReceiver(p, Integer.parseInt(first.substring("listening ".length()).trim()), out);
  }

  /** The base URL, as {@code tracing.otlpEndpoint} takes it. */
  String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  /** Every span received so far. */
  synchronized List<JsonNode> spans() {
    return List.copyOf(spans);
  }

  /** Requests it could not decode, or of the wrong kind. */
  synchronized List<String> errors() {
    return List.copyOf(errors);
  }

  private void read(BufferedReader out) {
    try {
      for (String line; (line = out.readLine()) != null; ) {
        JsonNode node = JSON.readTree(line);
        synchronized (this) {
          if (node.has("error")) {
            errors.add(node.get("error").asText());
          } else {
            spans.add(node);
          }
        }
      }
    } catch (Exception e) {
      synchronized (this) {
        errors.add("reading the receiver's output: " + e);
      }
    }
  }

  private static void copy(Path from, Path to) throws Exception {
    try (var files = Files.walk(from)) {
      for (Path f : files.toList()) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) {
          Files.createDirectories(target);
        } else {
          Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /** Ends the receiver: its stdin closes, it stops; killed if it has not within 10 s. */
  @Override
  public void close() throws Exception {
    process.getOutputStream().close();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
