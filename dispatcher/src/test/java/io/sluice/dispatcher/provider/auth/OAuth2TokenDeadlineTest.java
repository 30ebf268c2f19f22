package io.sluice.dispatcher.provider.auth;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ProviderAuth;
import io.sluice.config.Secret;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.TricklingServer;
import io.sluice.testkit.Await;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The OAuth2 token fetch has the provider's timeout for its whole answer (issue 33): a token
 * endpoint that answers its headers and trickles its body is a fetch that timed out, and its
 * connection is closed, on a real local socket.
 */
class OAuth2TokenDeadlineTest {
  @Test
  @DisplayName("a token endpoint trickling its body over 5 s: the fetch fails as a timeout at 1 s, its connection closed")
  void tricklingTokenEndpointIsATimeout() throws Exception {
    Duration timeout = Duration.ofSeconds(1);
    try (TricklingServer endpoint = new TricklingServer(50, 100)) {
      long start = System.nanoTime();
      try (OAuth2Tokens tokens = new OAuth2Tokens("partner", new ProviderAuth.OAuth2(
          endpoint.url("/token"), "sluice", Secret.literal("s3cret"), null, null),
          HttpProvider.defaultClient(timeout), Clock.systemUTC(), timeout)) {
        long hungUp = endpoint.hungUpAt(4000);
        assertTrue(hungUp != 0, "the token endpoint's trickling connection was left open");
        long millis = TimeUnit.NANOSECONDS.toMillis(hungUp - start);
        assertTrue(millis < 2000, "closed after " + millis + " ms");
        Await.until("the fetch's failure is stated", Duration.ofSeconds(2),
            () -> tokens.problem().orElseThrow().contains("HttpTimeoutException"));
      }
    }
  }
}
