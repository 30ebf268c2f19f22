package io.sluice.dispatcher.provider;

import static io.sluice.config.ProviderRequestBuilder.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import com.sun.net.httpserver.HttpServer;
import io.sluice.config.ProviderAuth;
import io.sluice.config.Secret;
import io.sluice.dispatcher.feedback.Backoff;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.schemas.event.Reason;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider's {@code ${file:}} credential revoked by deleting its file, seen from the calls
 * (issue 33: before, the deleted token was sent for as long as the process ran). The secret's
 * clock is the test's: each step is one {@link Secret#RECHECK} later, no sleeping.
 */
class RevokedCredentialTest {
  private static final FeedbackPolicy POLICY =
      new FeedbackPolicy(8, new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1)));

  @TempDir
  Path dir;
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final List<String> received = new CopyOnWriteArrayList<>();
  private HttpServer partner;

  @BeforeEach
  void start() throws Exception {
    partner = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    partner.createContext("/api", exchange -> {
      exchange.getRequestBody().readAllBytes();
      received.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    partner.start();
  }

  @AfterEach
  void stop() {
    partner.stop(0);
  }

  private void recheckLater() {
    nanos.addAndGet(Secret.RECHECK.toNanos());
  }

  private static ProviderResult call(HttpProvider http) throws Exception {
    return http.call(new ProviderCall("e-1", null, "{}".getBytes(), Map.of(), 3))
        .toCompletableFuture().get();
  }

  @Test
  void aDeletedTokenFileMakesCallsWaitAsCredentialUnavailableUntilItIsBack() throws Exception {
    Path file = dir.resolve("partner-token");
    Files.writeString(file, "tok-before\n");
    Secret token = Secret.resolve("${file:" + file + "}", Map.of(), nanos::get);
    URI url = URI.create("http://127.0.0.1:" + partner.getAddress().getPort() + "/api");
    try (HttpProvider http = HttpProvider.of("partner", ProviderConfigs.http(url,
        request().auth(new ProviderAuth.Bearer(token)).build()))) {
      assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, call(http)).status());

      Files.delete(file);
      recheckLater();
      assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, call(http)).status(),
          "missing once (perhaps mid-replacement): the last value, this once");
      recheckLater();
      ProviderResult revoked = call(http);

      ProviderResult.CredentialUnavailable waits =
          assertInstanceOf(ProviderResult.CredentialUnavailable.class, revoked, revoked::toString);
      assertFalse(waits.detail().contains("tok-before"), waits.detail());
      Verdict.Retry retry = assertInstanceOf(Verdict.Retry.class,
          POLICY.judge(revoked, 3, null, Instant.EPOCH, () -> 0.5));
      assertEquals(Reason.CREDENTIAL_UNAVAILABLE, retry.reason());
      assertEquals(3, retry.attempts(), "no attempt spent");
      assertEquals(List.of("Bearer tok-before", "Bearer tok-before"), received,
          "the revoked call never went out");

      Files.writeString(file, "tok-after\n");
      recheckLater();
      assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, call(http)).status());
      assertEquals("Bearer tok-after", received.get(received.size() - 1), "the file is back");
    }
  }
}
