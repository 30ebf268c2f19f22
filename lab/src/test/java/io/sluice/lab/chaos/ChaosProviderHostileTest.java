package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The chaos providers' hostile phase, through real HTTP calls. */
class ChaosProviderHostileTest {
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void shouldGiveEachProviderItsHostileAnswersThenStateItsRealLimits() throws Exception {
    try (ChaosProvider provider = new ChaosProvider(25, 1_000, () -> 800, 1_000)) {
      List<HttpResponse<Void>> answers = new ArrayList<>();
      for (int i = 0; i < ChaosProvider.HOSTILE_ANSWERS + 2; i++) {
        answers.add(http.send(HttpRequest.newBuilder(URI.create(provider.url("p-x")))
                .POST(HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.discarding()));
      }
      assertEquals(List.of(429, 200, 429, 200, 200, 200),
          answers.stream().map(HttpResponse::statusCode).toList());
      assertEquals("86400", answers.get(0).headers().firstValue("Retry-After").orElseThrow());
      assertEquals("\"trap\";q=0;w=2678400, \"daily\";q=1;w=86400",
          answers.get(0).headers().firstValue("RateLimit-Policy").orElseThrow());
      assertEquals("0", answers.get(1).headers().firstValue("X-RateLimit-Remaining").orElseThrow());
      long reset = Long.parseLong(
          answers.get(1).headers().firstValue("X-RateLimit-Reset").orElseThrow());
      assertEquals(86_400, reset - System.currentTimeMillis() / 1000, 5, "a reset a day away");
      List<String> restated = new ArrayList<>();
      for (HttpResponse<Void> r : answers.subList(4, 6)) {
        r.headers().firstValue("RateLimit-Policy").ifPresent(restated::add);
        r.headers().firstValue("X-RateLimit-Limit").ifPresent(restated::add);
      }
      assertEquals(2, restated.size(), "each later answer states a real limit: " + restated);
      assertEquals(ChaosProvider.HOSTILE_ANSWERS,
          provider.hostileAnswers().get("p-x").size());
    }
  }

  @Test
  void shouldRestateBothFamiliesToEachProviderWhateverTheOrderOfCalls() throws Exception {
    try (ChaosProvider provider = new ChaosProvider(25, 1_000, () -> 800, 1_000)) {
      for (String p : List.of("p-a", "p-b")) {
        for (int i = 0; i < ChaosProvider.HOSTILE_ANSWERS; i++) {
          call(provider, p);
        }
      }
      // Calls alternate a, b, a, b: a count over all calls would give p-a one family only.
      List<String> toA = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        toA.add(family(call(provider, "p-a")));
        call(provider, "p-b");
      }
      assertEquals(List.of("RateLimit-Policy", "X-RateLimit-Limit", "RateLimit-Policy",
          "X-RateLimit-Limit"), toA);
    }
  }

  private HttpResponse<Void> call(ChaosProvider provider, String name) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(provider.url(name)))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
  }

  private static String family(HttpResponse<Void> r) {
    return r.headers().firstValue("RateLimit-Policy").isPresent() ? "RateLimit-Policy"
        : r.headers().firstValue("X-RateLimit-Limit").isPresent() ? "X-RateLimit-Limit" : "none";
  }
}
