package io.sluice.dispatcher.provider;

import static io.sluice.config.ProviderRequestBuilder.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.config.ProviderAuth;
import io.sluice.config.ProviderRequest;
import io.sluice.config.Secret;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request a provider's settings shape: its method, content type, static headers and
 * credential, on the wire; and no event attribute sets a credential, whatever forwardHeaders
 * lists (the configuration refuses such a list; HttpProvider does not rely on it).
 */
class HttpProviderRequestTest {
  private static final byte[] BODY = "{\"order\":42}".getBytes(StandardCharsets.UTF_8);
  private static final Map<String, String> HOSTILE_ATTRIBUTES = Map.of(
      "Authorization", "Bearer stolen", "X-Api-Key", "from-event", "webhook-signature", "v1,forged",
      "X-Source", "event", "X-Trace", "t-1");

  private static RecordingReceiver.Received send(ProviderRequest request) throws Exception {
    try (RecordingReceiver receiver = RecordingReceiver.ok();
        HttpProvider http = new HttpProvider(ProviderConfigs.http(receiver.url("/hooks"),
            List.of("Authorization", "X-Api-Key", "webhook-signature", "X-Source", "X-Trace"), request),
            HttpProvider.defaultClient(Duration.ofSeconds(5)))) {
      ProviderResult result = http.call(new ProviderCall("e-1", "orders", BODY, HOSTILE_ATTRIBUTES, 1))
          .toCompletableFuture().get();
      assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, result).status());
      return receiver.next();
    }
  }

  @Test
  void shouldSendTheMethodContentTypeStaticHeadersAndBearerToken() throws Exception {
    RecordingReceiver.Received r = send(request().method("PUT")
        .contentType("text/plain; charset=utf-8").headers(Map.of("X-Source", "sluice"))
        .auth(new ProviderAuth.Bearer(Secret.literal("tok-1"))).build());

    assertEquals("PUT", r.method());
    assertEquals("/hooks/orders", r.path());
    assertEquals("text/plain; charset=utf-8", r.header("Content-Type"));
    assertEquals(List.of("sluice"), r.headers().get("X-Source"), "the static header, not the event's");
    assertEquals(List.of("Bearer tok-1"), r.headers().get("Authorization"), "never the event's");
    assertEquals("from-event", r.header("X-Api-Key"), "not the auth header here: forwarded");
    assertNull(r.header("webhook-signature"), "a webhook-* attribute is never forwarded");
    assertEquals("t-1", r.header("X-Trace"));
    assertArrayEquals(BODY, r.body());
  }

  @Test
  void shouldSendTheConfiguredHeaderCredentialAndNotTheEventsValue() throws Exception {
    RecordingReceiver.Received r = send(request().method("PATCH")
        .auth(new ProviderAuth.Header("X-Api-Key", Secret.literal("key-1"))).build());

    assertEquals("PATCH", r.method());
    assertEquals(List.of("key-1"), r.headers().get("X-Api-Key"));
    assertNull(r.header("Authorization"), "Authorization never comes from an event");
  }

  @Test
  void shouldSendBasicCredentialsAsRfc7617SaysAndADeleteWithItsBody() throws Exception {
    RecordingReceiver.Received r = send(request().method("DELETE")
        .auth(new ProviderAuth.Basic(Secret.literal("sluice"), Secret.literal("pä55:word"))).build());

    assertEquals("DELETE", r.method());
    assertEquals("Basic " + Base64.getEncoder().encodeToString(
        "sluice:pä55:word".getBytes(StandardCharsets.UTF_8)), r.header("Authorization"));
    assertArrayEquals(BODY, r.body());
  }

  @Test
  void shouldPostJsonWithNoCredentialByDefault() throws Exception {
    RecordingReceiver.Received r = send(ProviderRequest.DEFAULT);

    assertEquals("POST", r.method());
    assertEquals("application/json", r.header("Content-Type"));
    assertNull(r.header("Authorization"));
    assertNull(r.header("webhook-id"));
  }

  @Test
  void shouldEndACallWhoseCredentialCannotBeSentWithoutQuotingIt() throws Exception {
    try (HttpProvider http = new HttpProvider(ProviderConfigs.http(URI.create("http://127.0.0.1:9/h"), List.of(),
        request().auth(new ProviderAuth.Bearer(Secret.literal("line\nbreak-5ecret"))).build()),
        HttpProvider.defaultClient(Duration.ofSeconds(1)))) {
      ProviderResult result = http.call(new ProviderCall("e-1", null, BODY, Map.of(), 1))
          .toCompletableFuture().get();

      ProviderResult.Unsendable u = assertInstanceOf(ProviderResult.Unsendable.class, result);
      assertFalse(u.detail().contains("5ecret"), u.detail());
      assertEquals("the credential for Authorization is not a valid header value (a control "
          + "character in the secret?)", u.detail());
    }
  }

  @Test
  void shouldKeepTheLastCredentialItSentWhenItsFileIsRotatedToOneThatCannotBeSent(@TempDir Path dir)
      throws Exception {
    // A secret mount rotated with a stray line: the events are not at fault, and ending the
    // calls as unsendable would dead-letter every one of them as invalid.
    Path file = dir.resolve("token");
    Files.writeString(file, "tok-1");
    AtomicLong nanos = new AtomicLong();
    Secret token = Secret.resolve("${file:" + file + "}", Map.of(), nanos::get);
    try (HttpProvider http = new HttpProvider(ProviderConfigs.http(URI.create("http://127.0.0.1:9/h"), List.of(),
        request().auth(new ProviderAuth.Bearer(token)).build()),
        HttpProvider.defaultClient(Duration.ofSeconds(1)))) {
      ProviderCall call = new ProviderCall("e-1", null, BODY, Map.of(), 1);
      assertEquals("Bearer tok-1", http.request(call).headers().firstValue("Authorization").orElseThrow());

      Files.writeString(file, "tok-2\n\n");
      nanos.addAndGet(Secret.RECHECK.toNanos());
      assertEquals("Bearer tok-1", http.request(call).headers().firstValue("Authorization").orElseThrow(),
          "the last credential sent, until the file can be sent again");

      Files.writeString(file, "tok-3\n");
      nanos.addAndGet(Secret.RECHECK.toNanos());
      assertEquals("Bearer tok-3", http.request(call).headers().firstValue("Authorization").orElseThrow());
    }
  }

  @Test
  void shouldSendTheCallsTraceparentInPlaceOfAnAttributeOfThatNameAndNoneUntraced() throws Exception {
    String mine = "00-4bf92f3577b34da6a3ce929d0e0e4736-1234567890abcdef-01";
    try (RecordingReceiver receiver = RecordingReceiver.ok();
        HttpProvider http = new HttpProvider(ProviderConfigs.http(receiver.url("/hooks"),
            List.of("traceparent"), request().build()),
            HttpProvider.defaultClient(Duration.ofSeconds(5)))) {
      Map<String, String> forged = Map.of("traceparent", "00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01");
      http.call(new ProviderCall("e-1", null, BODY, forged, 1, 1, mine)).toCompletableFuture().get();
      assertEquals(List.of(mine), receiver.next().headers().get("traceparent"), "the call's span, once");
      http.call(new ProviderCall("e-2", null, BODY, Map.of(), 1)).toCompletableFuture().get();
      assertNull(receiver.next().header("traceparent"), "tracing off: none sent");
    }
  }
}
