package io.sluice.dispatcher.provider.signing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderConfigs;
import io.sluice.dispatcher.provider.RecordingReceiver;
import io.sluice.config.ProviderAuth;
import io.sluice.config.ProviderRequest;
import io.sluice.config.Secret;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A receiver no one here wrote accepts every signed call: the signatures {@link HttpProvider}
 * puts on the wire are checked by the Standard Webhooks reference library ({@code standardwebhooks}
 * from npm, pinned in {@code src/test/node/standardwebhooks/package-lock.json}), run on Node.js.
 * Covers a key rotation: a provider configured with the old secret, then both, then the new one,
 * against a receiver holding only the old and one holding only the new.
 *
 * <p>Without {@code node} on the PATH the test is skipped, except under {@code CI=true}, where
 * {@code .ci/run} installs it and a skip would hide a failure.
 */
class StandardWebhooksReferenceIT {
  private static final Path NODE_PROJECT = Path.of("src/test/node/standardwebhooks");
  private static final Path WORK = Path.of("target/standardwebhooks-check");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String OLD = secret(1);
  private static final String NEW = secret(2);

  @BeforeAll
  static void installTheReferenceLibrary() throws Exception {
    boolean node = onPath("node") && onPath("npm");
    if (!node && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("node and npm are required under CI=true (.ci/run installs them)");
    }
    Assumptions.assumeTrue(node, "node/npm not on the PATH: the Standard Webhooks reference check "
        + "is skipped (install nodejs and npm to run it)");
    Files.createDirectories(WORK);
    for (String f : List.of("package.json", "package-lock.json", "verify.mjs")) {
      Files.copy(NODE_PROJECT.resolve(f), WORK.resolve(f), StandardCopyOption.REPLACE_EXISTING);
    }
    if (!Files.isDirectory(WORK.resolve("node_modules/standardwebhooks"))) {
      run(List.of("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"), null);
    }
  }

  private static String secret(long seed) {
    byte[] key = new byte[32];
    new Random(seed).nextBytes(key);
    return "whsec_" + Base64.getEncoder().encodeToString(key);
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }

  private static String run(List<String> command, String stdin) throws Exception {
    Process p = new ProcessBuilder(command).directory(WORK.toFile()).redirectErrorStream(true).start();
    if (stdin != null) {
      p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), command + " did not end within 120 s");
    assertEquals(0, p.exitValue(), command + " failed:\n" + out);
    return out;
  }

  /** Calls as they reached a receiver: their headers and bodies. */
  private static List<RecordingReceiver.Received> calls(List<String> secrets, Clock clock,
      List<ProviderCall> calls) throws Exception {
    List<RecordingReceiver.Received> received = new ArrayList<>();
    try (RecordingReceiver receiver = RecordingReceiver.ok();
        HttpProvider http = new HttpProvider(ProviderConfigs.http(receiver.url("/hooks"),
            new ProviderRequest("POST", "application/json", Map.of(), ProviderAuth.NONE,
                secrets.stream().map(Secret::literal).toList(), null)),
            HttpProvider.defaultClient(Duration.ofSeconds(5)), clock)) {
      for (ProviderCall call : calls) {
        http.call(call).toCompletableFuture().get();
        received.add(receiver.next());
      }
    }
    return received;
  }

  private static List<ProviderCall> events(int n) {
    List<ProviderCall> calls = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String body = "{\"n\":" + i + ",\"text\":\"caf\u00e9 \u2603 \\\"q\\\"\",\"x\":1.10}";
      calls.add(new ProviderCall("evt_" + i, null, body.getBytes(StandardCharsets.UTF_8), Map.of(), 1));
    }
    return calls;
  }

  /** The reference library's verdict on each call for a receiver holding {@code secret}. */
  private static List<String> verify(String secret, List<RecordingReceiver.Received> calls)
      throws Exception {
    StringBuilder in = new StringBuilder();
    for (RecordingReceiver.Received r : calls) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("secret", secret);
      c.put("id", r.header("webhook-id"));
      c.put("timestamp", r.header("webhook-timestamp"));
      c.put("body", Base64.getEncoder().encodeToString(r.body()));
      c.put("signature", r.header("webhook-signature"));
      in.append(JSON.writeValueAsString(c)).append('\n');
    }
    return run(List.of("node", "verify.mjs"), in.toString()).lines().toList();
  }

  private static List<String> all(String verdict, int n) {
    return java.util.Collections.nCopies(n, verdict);
  }

  @Test
  void shouldBeAcceptedByTheReferenceLibraryAcrossAKeyRotation() throws Exception {
    int n = 25;
    List<RecordingReceiver.Received> oldOnly = calls(List.of(OLD), Clock.systemUTC(), events(n));
    List<RecordingReceiver.Received> both = calls(List.of(NEW, OLD), Clock.systemUTC(), events(n));
    List<RecordingReceiver.Received> newOnly = calls(List.of(NEW), Clock.systemUTC(), events(n));

    assertEquals(all("ok", n), verify(OLD, oldOnly), "old secret, receiver holding the old");
    assertEquals(all("ok", n), verify(OLD, both), "both secrets, receiver still on the old");
    assertEquals(all("ok", n), verify(NEW, both), "both secrets, receiver moved to the new");
    assertEquals(all("ok", n), verify(NEW, newOnly), "new secret, receiver holding the new");
    assertTrue(verify(NEW, oldOnly).stream().allMatch(v -> v.startsWith("refused")),
        "a receiver holding only the new secret refuses calls signed with the old alone");
    assertTrue(verify(OLD, newOnly).stream().allMatch(v -> v.startsWith("refused")),
        "and one holding only the old refuses calls signed with the new alone");
  }

  @Test
  void shouldKeepTheIdAcrossRetriesAndSignEachAttemptAtItsOwnTime() throws Exception {
    ProviderCall first = new ProviderCall("evt_retry", null, "{}".getBytes(StandardCharsets.UTF_8), Map.of(), 1);
    ProviderCall second = new ProviderCall("evt_retry", null, "{}".getBytes(StandardCharsets.UTF_8), Map.of(), 2);
    RecordingReceiver.Received a = calls(List.of(NEW), Clock.offset(Clock.systemUTC(),
        Duration.ofSeconds(-90)), List.of(first)).get(0);
    RecordingReceiver.Received b = calls(List.of(NEW), Clock.systemUTC(), List.of(second)).get(0);

    assertEquals("evt_retry", a.header("webhook-id"));
    assertEquals(a.header("webhook-id"), b.header("webhook-id"));
    assertNotEquals(a.header("webhook-timestamp"), b.header("webhook-timestamp"));
    assertEquals(List.of("ok", "ok"), verify(NEW, List.of(a, b)));
  }

  @Test
  void shouldBeRefusedByTheReferenceLibraryWhenTheBodyIsAltered() throws Exception {
    RecordingReceiver.Received r = calls(List.of(NEW), Clock.systemUTC(), events(1)).get(0);
    RecordingReceiver.Received altered = new RecordingReceiver.Received(r.method(), r.path(),
        r.headers(), "{\"n\":1}".getBytes(StandardCharsets.UTF_8));

    assertTrue(verify(NEW, List.of(altered)).get(0).startsWith("refused"));
  }
}
