package io.sluice.dispatcher.provider.auth;

import static io.sluice.config.ProviderRequestBuilder.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.feedback.Backoff;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.ProviderCall;
import io.sluice.dispatcher.provider.ProviderConfigs;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.testkit.Await;
import io.sluice.config.ProviderAuth;
import io.sluice.config.ProviderConfig;
import io.sluice.config.Secret;
import io.sluice.config.TenantEndpoint;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import io.sluice.schemas.event.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * OAuth2 client credentials against a local token endpoint whose tokens expire within seconds:
 * a token before the first call, replaced ahead of expiry without a call going out without one,
 * a 401 answered with one new token (no attempt spent) and a 401 to that one dead as
 * {@code unauthorized}, calls waiting (not sent) while the endpoint is down.
 */
class OAuth2ProviderTest {
  private static final FeedbackPolicy POLICY =
      new FeedbackPolicy(8, new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1)));

  private static HttpProvider provider(TokenEndpoint endpoint) {
    ProviderConfig config = ProviderConfigs.http(endpoint.api(), request()
        .auth(new ProviderAuth.OAuth2(endpoint.tokenUrl(), TokenEndpoint.CLIENT_ID,
            Secret.literal(TokenEndpoint.CLIENT_SECRET), "hooks:write", "https://partner.example"))
        .build());
    return HttpProvider.of("partner", config);
  }

  private static ProviderResult call(HttpProvider http, int n) throws Exception {
    return http.call(new ProviderCall("e-" + n, null, "{}".getBytes(), Map.of(), 1))
        .toCompletableFuture().get();
  }

  private static void awaitToken(HttpProvider http) {
    Await.until("a token", Duration.ofSeconds(10), () -> http.problem().isEmpty());
  }

  @Test
  void shouldFetchATokenWithTheClientCredentialsGrantAndSendItAsBearer() throws Exception {
    try (TokenEndpoint endpoint = new TokenEndpoint(60); HttpProvider http = provider(endpoint)) {
      awaitToken(http);
      ProviderResult r = call(http, 1);

      assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, r).status());
      assertEquals(List.of("grant_type=client_credentials&scope=hooks%3Awrite"
          + "&audience=https%3A%2F%2Fpartner.example"), endpoint.tokenRequests);
      assertEquals(1, endpoint.issued.get(), "one token per provider per process");
    }
  }

  @Test
  void shouldReplaceShortLivedTokensAheadOfExpirySoNoCallGoesWithoutAValidOne() throws Exception {
    try (TokenEndpoint endpoint = new TokenEndpoint(2); HttpProvider http = provider(endpoint)) {
      awaitToken(http);
      int n = 0;
      long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      while (System.nanoTime() < until) {
        ProviderResult r = call(http, n++);
        assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, r, r::toString).status());
      }

      assertTrue(endpoint.issued.get() >= 3, "tokens of 2 s replaced: " + endpoint.issued.get());
      assertEquals(0, endpoint.refusedCalls.get());
      System.out.printf("oauth2: %d calls over 5 s with 2 s tokens, %d tokens, 0 refused%n", n,
          endpoint.issued.get());
    }
  }

  @Test
  void shouldAnswerA401WithOneNewTokenAndDeadLetterA401ToThatOne() throws Exception {
    try (TokenEndpoint endpoint = new TokenEndpoint(60); HttpProvider http = provider(endpoint)) {
      awaitToken(http);
      endpoint.refuseAll = true;

      ProviderResult first = call(http, 1);
      ProviderResult.Unauthorized u1 = assertInstanceOf(ProviderResult.Unauthorized.class, first);
      assertFalse(u1.afterRefusal());
      Verdict.Retry again = assertInstanceOf(Verdict.Retry.class,
          POLICY.judge(first, 2, null, Instant.EPOCH, () -> 0.5));
      assertEquals(Reason.CREDENTIAL_UNAVAILABLE, again.reason());
      assertEquals(2, again.attempts(), "no attempt spent");

      Await.until("a new token", Duration.ofSeconds(10), () -> endpoint.issued.get() == 2
          && http.problem().isEmpty());
      ProviderResult second = call(http, 1);
      Verdict.Dead dead = assertInstanceOf(Verdict.Dead.class,
          POLICY.judge(second, 2, null, Instant.EPOCH, () -> 0.5));
      assertEquals(Reason.UNAUTHORIZED, dead.reason());
      assertEquals("provider answered 401 to a token fetched after an earlier 401", dead.detail());
    }
  }

  @Test
  void shouldKeepTheProvidersTokenWhenATenantsEndpointAnswers401() throws Exception {
    // Issue 33: a 401 from any endpoint threw the provider-wide token away, so one tenant's
    // server could make every call to the partner wait for a new token, at will.
    HttpServer tenant = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    List<String> tenantSaw = new CopyOnWriteArrayList<>();
    tenant.createContext("/hooks", exchange -> {
      exchange.getRequestBody().readAllBytes();
      tenantSaw.add(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
      exchange.sendResponseHeaders(401, -1);
      exchange.close();
    });
    tenant.start();
    try (TokenEndpoint endpoint = new TokenEndpoint(60); HttpProvider http = provider(endpoint)) {
      awaitToken(http);
      HttpProvider towardTenant = http.toward(new TenantEndpoint(URI.create("http://127.0.0.1:"
          + tenant.getAddress().getPort() + "/hooks"), List.of(), Optional.empty(), true));

      ProviderResult answer = call(towardTenant, 1);

      assertEquals(401, assertInstanceOf(ProviderResult.Answered.class, answer, answer::toString)
          .status(), "the tenant's own answer, not a refusal of the provider's token");
      assertEquals(1, tenantSaw.size(), "the token did go to the tenant (sendProviderAuth)");
      assertEquals(Optional.empty(), http.problem());
      assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, call(http, 2)).status(),
          "the partner is still called with the first token");
      assertEquals(1, endpoint.issued.get(), "no new token was fetched");
      assertEquals(0, endpoint.refusedCalls.get());
    } finally {
      tenant.stop(0);
    }
  }

  @Test
  void shouldHoldCallsWhileTheTokenEndpointIsDownAndSayWhyWithoutTheSecret() throws Exception {
    try (TokenEndpoint endpoint = new TokenEndpoint(60)) {
      endpoint.down = true;
      try (HttpProvider http = provider(endpoint)) {
        Await.until("a failed fetch", Duration.ofSeconds(10), () -> !endpoint.tokenRequests.isEmpty()
            && http.problem().orElse("").contains("503"));
        ProviderResult r = call(http, 1);

        ProviderResult.CredentialUnavailable c =
            assertInstanceOf(ProviderResult.CredentialUnavailable.class, r);
        assertEquals(0, endpoint.calls.get(), "no call went out");
        Verdict.Retry wait = assertInstanceOf(Verdict.Retry.class,
            POLICY.judge(r, 3, null, Instant.EPOCH, () -> 0.5));
        assertEquals(3, wait.attempts(), "no attempt spent");
        assertTrue(c.detail().startsWith("provider partner: no OAuth2 token: token endpoint "
            + "answered 503 (temporarily_unavailable); trying again in"), c.detail());
        assertFalse(c.detail().contains("5ecret"), c.detail());

        endpoint.down = false;
        awaitToken(http);
        assertEquals(200, assertInstanceOf(ProviderResult.Answered.class, call(http, 2)).status());
      }
    }
  }

  @Test
  void shouldRefreshAt80PercentOfTheLifetimeAndNeverSendATokenInItsLastSecond() {
    AccessToken t = new AccessToken("x", 10_000, 40_000, false);

    assertEquals(34_000, t.refreshAtMillis());
    assertTrue(t.usableAt(38_999));
    assertFalse(t.usableAt(39_000));
    assertFalse(t.toString().contains("x,"), t.toString());
    AccessToken brief = new AccessToken("y", 0, 2_000, false);
    assertEquals(1_600, brief.refreshAtMillis());
    assertTrue(brief.usableAt(1_799), "a 2 s token is kept to its last tenth");
    assertFalse(brief.usableAt(1_800));
  }

  @Test
  void shouldRefuseATokenAnswerWithoutABearerToken() {
    Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
        () -> OAuth2Tokens.parse(200, "{\"access_token\":\"a\",\"token_type\":\"mac\"}".getBytes(),
            0, false));
    assertEquals("token endpoint answered a token_type other than Bearer", e.getMessage());
  }
}
