package io.sluice.embedded.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The strict multi-limit provider, seen through real HTTP calls. Windows of a minute: no race. */
class MockProviderLimitsTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<Void> call(MockProvider mock, long cost) throws Exception {
    return http.send(HttpRequest.newBuilder(mock.url())
            .header(MockProvider.COST_HEADER, Long.toString(cost))
            .POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.discarding());
  }

  @Test
  void shouldAcceptOnlyWhatEveryLimitHoldsAndChargeRefusedCallsToNone() throws Exception {
    try (MockProvider mock = MockProvider.fromArguments(
        "--limit", "3/60s", "--cost-limit", "10/1m")) {
      assertEquals(200, call(mock, 6).statusCode());
      assertEquals(429, call(mock, 5).statusCode(), "cost 11 > 10");
      assertEquals(200, call(mock, 4).statusCode(), "the refused call took no cost and no call");
      HttpResponse<Void> third = call(mock, 1);
      assertEquals(429, third.statusCode(), "cost 11 again");
      assertEquals("60", third.headers().firstValue("Retry-After").orElseThrow());
      assertEquals(2, mock.rateLimited());
      assertEquals(List.of(6L, 5L, 4L, 1L), mock.calls().stream().map(MockProvider.Call::cost).toList());
    }
  }

  @Test
  void shouldRefuseOnTheCallLimitAloneWhenCostIsLeft() throws Exception {
    try (MockProvider mock = MockProvider.start(List.of(ProviderWindow.calls(2, Duration.ofMinutes(1)),
        ProviderWindow.cost(100, Duration.ofMinutes(1))), MockProvider.Announce.NONE, Duration.ZERO)) {
      assertEquals(200, call(mock, 1).statusCode());
      assertEquals(200, call(mock, 1).statusCode());
      assertEquals(429, call(mock, 1).statusCode());
    }
  }

  @Test
  void shouldAnswer400ToACostThatCanNeverFit() throws Exception {
    try (MockProvider mock = MockProvider.fromArguments("--limit", "5/1s", "--cost-limit", "10/60s")) {
      assertEquals(400, call(mock, 11).statusCode());
      assertEquals(0, mock.rateLimited());
    }
  }

  @Test
  void shouldAnswerAsHostileAsAnswersGetWhenAskedTo() throws Exception {
    try (MockProvider mock = MockProvider.fromArguments("--limit", "1/60s", "--announce",
        "hostile")) {
      HttpResponse<Void> ok = call(mock, 1);
      assertEquals(200, ok.statusCode());
      assertEquals("\"trap\";q=0;w=2678400, \"daily\";q=1;w=86400",
          ok.headers().firstValue("RateLimit-Policy").orElseThrow());
      assertEquals("\"daily\";r=0;t=86400", ok.headers().firstValue("RateLimit").orElseThrow());
      HttpResponse<Void> refused = call(mock, 1);
      assertEquals(429, refused.statusCode());
      assertEquals("86400", refused.headers().firstValue("Retry-After").orElseThrow());
    }
  }

  @Test
  void shouldAnnounceEveryLimitInIetfFields() throws Exception {
    try (MockProvider mock = MockProvider.fromArguments(
        "--limit", "20/1m", "--limit", "600/60m", "--cost-limit", "5000/60s", "--announce", "ietf")) {
      HttpResponse<Void> r = call(mock, 7);
      assertEquals("\"calls-60s\";q=20;w=60, \"calls-3600s\";q=600;w=3600, "
              + "\"cost-60s\";q=5000;w=60;qu=\"cost\"",
          r.headers().firstValue("RateLimit-Policy").orElseThrow());
      assertEquals("\"calls-60s\";r=19;t=60, \"calls-3600s\";r=599;t=3600, \"cost-60s\";r=4993;t=60",
          r.headers().firstValue("RateLimit").orElseThrow());
    }
  }

  @Test
  void shouldAnnounceTheLongestWindowOfEachUnitInXRateLimitFields() throws Exception {
    try (MockProvider mock = MockProvider.fromArguments(
        "--limit", "20/1s", "--limit", "600/6m", "--cost-limit", "5000/60s", "--announce", "x-ratelimit")) {
      HttpResponse<Void> r = call(mock, 7);
      assertEquals("600", r.headers().firstValue("x-ratelimit-limit-requests").orElseThrow());
      assertEquals("599", r.headers().firstValue("x-ratelimit-remaining-requests").orElseThrow());
      assertEquals("6m0s", r.headers().firstValue("x-ratelimit-reset-requests").orElseThrow());
      assertEquals("5000", r.headers().firstValue("x-ratelimit-limit-tokens").orElseThrow());
      assertEquals("4993", r.headers().firstValue("x-ratelimit-remaining-tokens").orElseThrow());
      assertEquals("1m0s", r.headers().firstValue("x-ratelimit-reset-tokens").orElseThrow());
      assertTrue(r.headers().firstValue("RateLimit").isEmpty());
    }
  }

  @Test
  void shouldAnnounceEachCallLimitOfAWholePeriodInPeriodFieldsAndCostInTokenFields()
      throws Exception {
    try (MockProvider mock = MockProvider.fromArguments("--limit", "20/1s", "--limit", "600/60s",
        "--limit", "50/7s", "--cost-limit", "5000/60s", "--announce", "x-ratelimit-periods")) {
      HttpResponse<Void> r = call(mock, 7);
      assertEquals("20", r.headers().firstValue("X-RateLimit-Limit-Second").orElseThrow());
      assertEquals("19", r.headers().firstValue("X-RateLimit-Remaining-Second").orElseThrow());
      assertEquals("600", r.headers().firstValue("X-RateLimit-Limit-Minute").orElseThrow());
      assertEquals("599", r.headers().firstValue("X-RateLimit-Remaining-Minute").orElseThrow());
      assertEquals("4993", r.headers().firstValue("x-ratelimit-remaining-tokens").orElseThrow());
      assertTrue(r.headers().firstValue("x-ratelimit-limit-requests").isEmpty(),
          "calls are stated by period only");
      assertEquals(List.of("x-ratelimit-limit-minute", "x-ratelimit-limit-second",
              "x-ratelimit-remaining-minute", "x-ratelimit-remaining-second"),
          r.headers().map().keySet().stream().map(String::toLowerCase)
              .filter(k -> k.matches("x-ratelimit-(limit|remaining)-(second|minute|hour|day)"))
              .sorted().toList(),
          "the 50/7s limit is no whole period: not announced");
    }
  }

  @Test
  void shouldPrintDurationsTheWayGoDoes() {
    assertEquals("250ms", MockProvider.goDuration(250_000_000L));
    assertEquals("1s", MockProvider.goDuration(1_000_000_000L));
    assertEquals("2s", MockProvider.goDuration(1_000_000_001L));
    assertEquals("6m0s", MockProvider.goDuration(360_000_000_000L));
    assertEquals("1h0m1s", MockProvider.goDuration(3_601_000_000_000L));
  }
}
