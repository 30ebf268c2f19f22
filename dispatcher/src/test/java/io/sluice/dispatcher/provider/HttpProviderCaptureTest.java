package io.sluice.dispatcher.provider;

import static io.sluice.config.ProviderRequestBuilder.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.feedback.Backoff;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.config.ProviderAuth;
import io.sluice.config.ProviderRequest;
import io.sluice.config.Secret;
import io.sluice.schemas.event.Reason;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What is kept of a provider's answer: the listed headers and a body excerpt of at most
 * {@code capture.bodyBytes}, read bounded whatever the provider sends, with control characters
 * replaced and the provider's own secrets masked (a provider echoing the credential in its error
 * body must not put it in a dead letter).
 */
class HttpProviderCaptureTest {
  private static final String TOKEN = "tok-5ecret-echoed-back";

  private static ProviderResult.Answered call(int status, byte[] body, int bodyBytes) throws Exception {
    try (RecordingReceiver receiver = new RecordingReceiver(r -> new RecordingReceiver.Answer(status, body));
        HttpProvider http = new HttpProvider(ProviderConfigs.http(receiver.url("/hooks"),
            request().auth(new ProviderAuth.Bearer(Secret.literal(TOKEN)))
                .capture(new ProviderRequest.Capture(List.of("Content-Length", "X-Absent"),
                    bodyBytes))
                .build()),
            HttpProvider.defaultClient(Duration.ofSeconds(5)))) {
      return assertInstanceOf(ProviderResult.Answered.class,
          http.call(new ProviderCall("e-1", null, new byte[0], Map.of(), 1)).toCompletableFuture().get());
    }
  }

  @Test
  void shouldKeepAtMostTheExcerptOfAHugeBodyWithTheEchoedCredentialMasked() throws Exception {
    byte[] huge = ("denied\r\nfor Bearer " + TOKEN + "\u0000 " + "x".repeat(8 << 20))
        .getBytes(StandardCharsets.UTF_8);

    ProviderResult.Answered a = call(401, huge, 64);

    assertEquals(401, a.status());
    String body = a.captured().body();
    assertEquals(64, body.getBytes(StandardCharsets.UTF_8).length);
    assertTrue(body.startsWith("denied??for ***? xxx"), body);
    assertFalse(body.contains("5ecret"), body);
    assertEquals(Map.of("content-length", Integer.toString(huge.length)), a.captured().headers());
    assertTrue(a.latencyMillis() >= 0);
  }

  @Test
  void shouldMaskASecretThatStraddlesTheCut() throws Exception {
    byte[] body = ("0123456789" + TOKEN + " tail").getBytes(StandardCharsets.UTF_8);

    String excerpt = call(400, body, 14).captured().body();

    assertEquals("0123456789*** ", excerpt);
  }

  @Test
  void shouldPutTheStatusAndExcerptInTheDeadLetterOfARefusedCall() throws Exception {
    ProviderResult.Answered a = call(422, "{\"error\":\"amount must be positive\"}"
        .getBytes(StandardCharsets.UTF_8), 512);

    Verdict v = new FeedbackPolicy(8, new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1)))
        .judge(a, 0, null, Instant.EPOCH, () -> 0.5);

    Verdict.Dead dead = assertInstanceOf(Verdict.Dead.class, v);
    assertEquals(Reason.NON_RETRYABLE_4XX, dead.reason());
    assertEquals("provider answered 422, which retrying cannot fix; body: "
        + "{\"error\":\"amount must be positive\"}", dead.detail());
  }

  @Test
  void shouldKeepNothingWithoutCapture() throws Exception {
    ProviderResult.Answered a = call(500, "oops".getBytes(StandardCharsets.UTF_8), 0);

    assertNull(a.captured().body());
  }
}
