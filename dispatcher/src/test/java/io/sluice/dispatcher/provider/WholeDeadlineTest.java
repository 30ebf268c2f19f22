package io.sluice.dispatcher.provider;

import static io.sluice.config.ProviderConfigBuilder.providerAt;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ProviderConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A call has one deadline for its headers and its body (issue 33): an endpoint that answers its
 * headers at once and trickles its body is a timeout at the provider's {@code timeout}, and its
 * connection is closed, not read to the end. Against a real local socket.
 */
class WholeDeadlineTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  private static ProviderConfig provider(URI url) {
    return providerAt(url).timeout(TIMEOUT).build();
  }

  @Test
  @DisplayName("headers at once, then a body of 50 bytes trickled over 5 s: a timeout at 1 s, and the connection closed")
  void tricklingBodyIsATimeout() throws Exception {
    try (TricklingServer endpoint = new TricklingServer(50, 100);
        HttpProvider http = new HttpProvider(provider(endpoint.url("/hooks")),
            HttpProvider.defaultClient(TIMEOUT))) {
      long start = System.nanoTime();
      ProviderResult result = http.call(new ProviderCall("e-1", null, "{}".getBytes(), Map.of(), 1))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      assertInstanceOf(ProviderResult.TimedOut.class, result, result.toString());
      assertTrue(millis >= 1000 && millis < 1500, "ended after " + millis + " ms");
      long hungUp = endpoint.hungUpAt(2000);
      assertTrue(hungUp != 0, "the trickling connection was left open");
      assertTrue(TimeUnit.NANOSECONDS.toMillis(hungUp - start) < 2500,
          "closed " + TimeUnit.NANOSECONDS.toMillis(hungUp - start) + " ms after the call began");
    }
  }

  @Test
  @DisplayName("a body that arrives whole within the timeout is answered as before")
  void wholeAnswerInTime() throws Exception {
    try (TricklingServer endpoint = new TricklingServer(5, 20);
        HttpProvider http = new HttpProvider(provider(endpoint.url("/hooks")),
            HttpProvider.defaultClient(TIMEOUT))) {
      ProviderResult result = http.call(new ProviderCall("e-1", null, "{}".getBytes(), Map.of(), 1))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertInstanceOf(ProviderResult.Answered.class, result, result.toString());
    }
  }
}
