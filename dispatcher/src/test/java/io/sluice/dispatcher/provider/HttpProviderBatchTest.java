package io.sluice.dispatcher.provider;

import static io.sluice.config.ProviderRequestBuilder.request;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.sluice.config.Secret;
import io.sluice.dispatcher.provider.signing.StandardWebhooksSigner;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A batch on the wire: the array body signed whole, the batch's key where an event's id goes, the
 * summed cost; and each event's own status read from a 2xx answer that lists it, never from
 * another.
 */
class HttpProviderBatchTest {
  private static final String SECRET = "whsec_" + Base64.getEncoder().encodeToString(new byte[32]);
  private static final List<String> IDS = List.of("b", "a");
  private static final byte[] BODY = BatchBody.of(List.of("{\"n\":1}".getBytes(UTF_8),
      new byte[0]));

  private record Exchange(RecordingReceiver.Received received, ProviderResult result) {}

  private static Exchange send(int status, String answer) throws Exception {
    try (RecordingReceiver receiver = new RecordingReceiver(
            r -> new RecordingReceiver.Answer(status, answer.getBytes(UTF_8)));
        HttpProvider http = new HttpProvider(ProviderConfigs.http(receiver.url("/hooks"),
            request().signedWith(List.of(Secret.literal(SECRET))).build()),
            HttpProvider.defaultClient(Duration.ofSeconds(5)))) {
      ProviderResult result = http.call(new ProviderCall(BatchBody.key(IDS), null, BODY, Map.of(),
          1, 3, IDS)).toCompletableFuture().get();
      return new Exchange(receiver.next(), result);
    }
  }

  @Test
  void shouldSendTheArraySignedWholeUnderTheBatchKey() throws Exception {
    RecordingReceiver.Received r = send(200, "").received();

    assertArrayEquals("[{\"n\":1},null]".getBytes(UTF_8), r.body());
    String key = BatchBody.key(List.of("a", "b"));
    assertEquals(key, r.header("Idempotency-Key"), "the same key in whatever order the events came");
    assertEquals(key, r.header("webhook-id"));
    assertEquals("3", r.header("Sluice-Cost"), "the events' summed cost");
    String expected = new StandardWebhooksSigner(List.of(Secret.literal(SECRET))).signature(key,
        Long.parseLong(r.header("webhook-timestamp")), r.body());
    assertEquals(expected, r.header("webhook-signature"), "the signature covers the whole array");
  }

  @Test
  void shouldReadEachEventsStatusFromA2xxAnswerThatListsIt() throws Exception {
    ProviderResult result = send(207,
        "{\"results\":[{\"id\":\"a\",\"status\":200},{\"id\":\"b\",\"status\":503}]}").result();

    assertEquals(Map.of("a", 200, "b", 503),
        assertInstanceOf(ProviderResult.Answered.class, result).itemStatuses());
  }

  @Test
  void shouldTakeNoEventsStatusFromAFailedCall() throws Exception {
    ProviderResult result = send(500, "{\"results\":[{\"id\":\"a\",\"status\":200}]}").result();

    assertEquals(Map.of(), assertInstanceOf(ProviderResult.Answered.class, result).itemStatuses(),
        "a 500 is every event's");
  }
}
