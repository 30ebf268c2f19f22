package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.trace.EventTrace;
import io.sluice.app.trace.Journey;
import io.sluice.app.trace.TopicSearch;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /admin/events/ID}: what reaches the search from a request, what is refused before it
 * does, and the answer's form (the search itself is EventJourneyIT's, on a broker).
 */
class EventRoutesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();
  private final AtomicReference<String> askedId = new AtomicReference<>();
  private final AtomicReference<TopicSearch.Bounds> askedBounds = new AtomicReference<>();
  private final TopicScans scans = new TopicScans();
  private volatile CountDownLatch hold = new CountDownLatch(0);
  private final CountDownLatch entered = new CountDownLatch(1);
  private RouteServer server;

  /** Finds "known" (two stages) and nothing else. */
  private final EventRoutes.Source source = (id, bounds) -> {
    askedId.set(id);
    askedBounds.set(bounds);
    entered.countDown();
    try {
      hold.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!id.equals("known")) {
      return new EventTrace.Report(id, List.of(), 42, true);
    }
    return new EventTrace.Report(id, List.of(
        new Journey.Stage(Instant.ofEpochMilli(1_000), "s.inbound-0@3", "produced", Map.of()),
        new Journey.Stage(Instant.ofEpochMilli(2_000), "s.dlq-1@9", "dead-lettered: expired",
            Map.of("detail", "deadline passed"))), 17, false);
  };

  private int port() {
    server = RouteServer.start(new EventRoutes(source, scans)::serve);
    return server.port();
  }

  @AfterEach
  void stop() {
    hold.countDown();
    server.close();
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  @DisplayName("a journey found is 200 with the trace's JSON; the search bounded by since, the record cap and the scan timeout")
  void answersTheJourney() throws Exception {
    int port = port();
    HttpResponse<String> r = get(port, "/admin/events/known?since=6h");
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("known", askedId.get());
    assertEquals(new TopicSearch.Bounds(Duration.ofHours(6), EventRoutes.MAX_RECORDS,
        DeadLetterRoutes.SCAN_TIMEOUT), askedBounds.get());
    JsonNode body = JSON.readTree(r.body());
    assertEquals("known", body.get("id").asText());
    assertTrue(body.get("found").asBoolean());
    assertEquals(2, body.get("stages").size());
    assertEquals("1970-01-01T00:00:02Z", body.get("stages").get(1).get("at").asText());
    assertEquals("deadline passed", body.get("stages").get(1).get("details").get("detail").asText());
    assertEquals(17, body.get("recordsRead").asLong());
    assertFalse(body.get("bounded").asBoolean());
    assertFalse(body.has("error"));

    get(port, "/admin/events/known");
    assertEquals(EventRoutes.DEFAULT_SINCE, askedBounds.get().since());
  }

  @Test
  @DisplayName("no record found is 404 with the same form, saying whether a bound stopped the search")
  void notFoundIs404() throws Exception {
    HttpResponse<String> r = get(port(), "/admin/events/nobody");
    assertEquals(404, r.statusCode(), r.body());
    JsonNode body = JSON.readTree(r.body());
    assertFalse(body.get("found").asBoolean());
    assertEquals(0, body.get("stages").size());
    assertTrue(body.get("bounded").asBoolean());
    assertTrue(body.get("error").asText().contains("narrow with since"), r.body());
  }

  @Test
  @DisplayName("the id is one path segment, percent-decoded: any id the event contract accepts")
  void idsArePercentDecoded() throws Exception {
    int port = port();
    get(port, "/admin/events/a%2Fb%20c+d%25");
    assertEquals("a/b c+d%", askedId.get());
    get(port, "/admin/events/" + "x".repeat(128));
    assertEquals("x".repeat(128), askedId.get());
  }

  @Test
  @DisplayName("an id the contract refuses, a bad since or another method is refused before Kafka is read")
  void hostileInputRefused() throws Exception {
    int port = port();
    for (String path : List.of("/admin/events/", "/admin/events/" + "x".repeat(129),
        "/admin/events/a%0Ab", "/admin/events/%E2%82%AC", "/admin/events/a/b",
        "/admin/events/%20a", "/admin/events/%00",
        "/admin/events/" + "%41".repeat(200), "/admin/events/a?since=31d",
        "/admin/events/a?since=0s", "/admin/events/a?since=forever",
        "/admin/events/a?since=999999999999d")) {
      HttpResponse<String> r = get(port, path);
      assertEquals(400, r.statusCode(), path + ": " + r.body());
      assertNull(askedId.get(), path);
    }
    HttpResponse<String> post = http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/admin/events/a"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(405, post.statusCode());
    assertNull(askedId.get());
    // What no client sends as a URI, but a raw request line may.
    for (String raw : List.of("a%2", "a%zz", "%", "a\u00e9", "a b", "a\u0141")) {
      assertThrows(IllegalArgumentException.class, () -> EventRoutes.id(raw), raw);
    }
  }

  @Test
  @DisplayName("one scan at a time, shared with the dead-letter routes: a second is 429")
  void oneScanAtATime() throws Exception {
    int port = port();
    hold = new CountDownLatch(1);
    CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> {
      try {
        return get(port, "/admin/events/known");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertTrue(entered.await(10, TimeUnit.SECONDS));
    assertTrue(scans.busy(), "held for the dead-letter routes too");
    HttpResponse<String> second = get(port, "/admin/events/known");
    assertEquals(429, second.statusCode(), second.body());
    hold.countDown();
    assertEquals(200, first.get(10, TimeUnit.SECONDS).statusCode());
  }
}
