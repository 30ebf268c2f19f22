package io.sluice.dispatcher.provider.signing;

import static io.sluice.config.ProviderEndpointsBuilder.perTenant;
import static io.sluice.config.ProviderRequestBuilder.request;
import static io.sluice.config.ProviderConfigBuilder.providerAt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderConfigs;
import io.sluice.dispatcher.provider.RecordingReceiver;
import io.sluice.config.EndpointSecret;
import io.sluice.config.SealingKeys;
import io.sluice.config.TenantEndpoint;
import io.sluice.config.Secret;
import io.sluice.testkit.NodeTools;
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
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
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
    NodeTools.require("the Standard Webhooks reference check");
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
            request().signedWith(secrets.stream().map(Secret::literal).toList()).build()),
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

  // Issue 33: a secret per endpoint. The provider below still has its one shared secret
  // configured: before, every tenant's endpoint was signed with it, so tenant B's receiver (which
  // had to hold it) accepted whatever tenant A's receiver could sign.
  private static final String SHARED = secret(3);
  private static final String TENANT_A = secret(4);
  private static final String TENANT_B = secret(5);
  private static final SealingKeys KEYS = SealingKeys.of(Map.of("k1",
      Secret.literal(Base64.getEncoder().encodeToString(new byte[32]))));

  /** Calls to a tenant's endpoint of a per-tenant provider signing with {@link #SHARED}. */
  private static List<RecordingReceiver.Received> endpointCalls(EndpointSecret secret, Clock clock,
      List<ProviderCall> calls) throws Exception {
    List<RecordingReceiver.Received> received = new ArrayList<>();
    try (RecordingReceiver receiver = RecordingReceiver.ok();
        HttpProvider http = new HttpProvider(providerAt(URI_UNUSED)
            .request(request().signedWith(List.of(Secret.literal(SHARED))).build())
            .endpoints(perTenant().allowPrivateNetworks().allowPlainHttp().build()).build(),
            HttpProvider.defaultClient(Duration.ofSeconds(5)), clock, KEYS)) {
      HttpProvider endpoint = http.toward(new TenantEndpoint(receiver.url("/hooks"), List.of(),
          Optional.of(secret), false));
      for (ProviderCall call : calls) {
        endpoint.call(call).toCompletableFuture().get();
        received.add(receiver.next());
      }
    }
    return received;
  }

  private static final java.net.URI URI_UNUSED = java.net.URI.create("http://unused.invalid/");

  @Test
  void tenantAsSignatureIsRefusedByTenantBsReceiver() throws Exception {
    int n = 5;
    List<RecordingReceiver.Received> toA = endpointCalls(
        new EndpointSecret.Sealed(KEYS.seal(TENANT_A)), Clock.systemUTC(), events(n));

    assertEquals(all("ok", n), verify(TENANT_A, toA), "A's receiver, holding A's secret");
    assertTrue(verify(TENANT_B, toA).stream().allMatch(v -> v.startsWith("refused")),
        "B's receiver refuses what A's secret signs");
    assertTrue(verify(SHARED, toA).stream().allMatch(v -> v.startsWith("refused")),
        "and the provider's shared secret signs for no tenant's endpoint");
  }

  @Test
  void bothSecretsVerifyDuringARotationsOverlapAndOnlyTheNewAfter() throws Exception {
    // The reference library refuses a timestamp 5 minutes from its own clock, so the calls are
    // made now; the overlap is placed around now instead: ending in an hour, and ended a second ago.
    long now = System.currentTimeMillis();
    String sealedNew = KEYS.seal(NEW);
    String sealedOld = KEYS.seal(OLD);
    List<RecordingReceiver.Received> during = endpointCalls(
        new EndpointSecret.Sealed(sealedNew, sealedOld, now + 3_600_000), Clock.systemUTC(), events(3));
    List<RecordingReceiver.Received> after = endpointCalls(
        new EndpointSecret.Sealed(sealedNew, sealedOld, now - 1_000), Clock.systemUTC(), events(3));

    assertEquals(all("ok", 3), verify(OLD, during), "during the overlap, a receiver still on the old");
    assertEquals(all("ok", 3), verify(NEW, during), "and one moved to the new");
    assertEquals(all("ok", 3), verify(NEW, after), "after it, the new");
    assertTrue(verify(OLD, after).stream().allMatch(v -> v.startsWith("refused")),
        "once the overlap ends, the old secret signs no more");
  }
}
