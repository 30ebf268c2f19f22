package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.app.dlq.DeadLetterQuery;
import io.sluice.app.dlq.DlqOperations;
import io.sluice.app.dlq.ReplaySelection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
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
 * {@code GET /admin/dlq} and {@code POST /admin/dlq/replay}: what reaches the dead-letter code from
 * a request, and what is refused before it does (the reading itself is DeadLetterReplayIT's).
 */
class DeadLetterRoutesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();
  private final AtomicReference<DeadLetterQuery> asked = new AtomicReference<>();
  private final AtomicReference<Boolean> dry = new AtomicReference<>();
  private volatile CountDownLatch hold = new CountDownLatch(0);
  private volatile CountDownLatch entered = new CountDownLatch(1);
  private RouteServer server;

  private final DeadLetterRoutes.Source source = new DeadLetterRoutes.Source() {
    @Override
    public DlqOperations.Listing list(DeadLetterQuery query, Duration timeout) {
      asked.set(query);
      entered.countDown();
      await(hold);
      assertEquals(DeadLetterRoutes.SCAN_TIMEOUT, timeout);
      return new DlqOperations.Listing(List.of(), 7, false);
    }

    @Override
    public DlqOperations.ReplayReport replay(DeadLetterQuery query, Duration timeout,
        boolean dryRun) {
      asked.set(query);
      dry.set(dryRun);
      return new DlqOperations.ReplayReport(List.of(),
          Map.of(ReplaySelection.Verdict.ALREADY_REPLAYED, 3L), 3, false, false, dryRun);
    }
  };

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The routes behind a server, with the access the request's X-Access names (AdminApi's job). */
  private int port(DeadLetterRoutes routes) {
    server = RouteServer.start(exchange -> routes.serve(exchange, AdminTokens.Access.valueOf(
        exchange.getRequestHeaders().getFirst("X-Access"))));
    return server.port();
  }

  @AfterEach
  void stop() {
    hold.countDown();
    server.close();
  }

  private HttpResponse<String> send(int port, String method, String path, String access,
      String body) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("X-Access", access)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  @DisplayName("a listing takes the command line's filters from the query; empty ones are none; limit 100 unless given")
  void listsWithTheFilters() throws Exception {
    int port = port(new DeadLetterRoutes(source, new TopicScans()));
    HttpResponse<String> r = send(port, "GET",
        "/admin/dlq?reason=non_retryable_4xx&provider=pay&tenant=&since=1h", "READ", null);
    assertEquals(200, r.statusCode(), r.body());
    assertEquals(new DeadLetterQuery("non_retryable_4xx", "pay", null, Duration.ofHours(1), 100),
        asked.get());
    JsonNode body = JSON.readTree(r.body());
    assertEquals(7, body.get("read").asLong());
    assertFalse(body.get("timedOut").asBoolean());
    assertEquals(200, send(port, "GET", "/admin/dlq?limit=1000", "READ", null).statusCode());
    assertEquals(1000, asked.get().limit());
  }

  @Test
  @DisplayName("a limit above 1000, a bad filter, or a wrong method is refused before Kafka is read")
  void boundsRefused() throws Exception {
    int port = port(new DeadLetterRoutes(source, new TopicScans()));
    for (String q : List.of("limit=1001", "limit=0", "limit=-1", "limit=9999999999", "limit=1e3",
        "since=forever", "reason=%3Cscript%3E", "tenant=a%20b", "since=401d")) {
      asked.set(null);
      HttpResponse<String> r = send(port, "GET", "/admin/dlq?" + q, "WRITE", null);
      assertEquals(400, r.statusCode(), q + ": " + r.body());
      assertFalse(r.body().contains("--"), "fields, not command-line options: " + r.body());
      assertEquals(null, asked.get(), q);
    }
    assertEquals(405, send(port, "POST", "/admin/dlq", "WRITE", "{}").statusCode());
    assertEquals(405, send(port, "GET", "/admin/dlq/replay", "WRITE", null).statusCode());
  }

  @Test
  @DisplayName("a replay needs the write token, and is a dry run unless dryRun is false")
  void replayIsDryUnlessAsked() throws Exception {
    int port = port(new DeadLetterRoutes(source, new TopicScans()));
    HttpResponse<String> read = send(port, "POST", "/admin/dlq/replay", "READ", "{\"dryRun\":false}");
    assertEquals(403, read.statusCode());
    assertEquals(null, dry.get(), "nothing replayed with the read token");

    HttpResponse<String> r = send(port, "POST", "/admin/dlq/replay", "WRITE",
        "{\"provider\":\"pay\",\"limit\":5}");
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(dry.get(), "no dryRun: a dry run");
    assertEquals(new DeadLetterQuery(null, "pay", null, null, 5), asked.get());
    JsonNode body = JSON.readTree(r.body());
    assertTrue(body.has("wouldSend"), r.body());
    assertEquals(3, body.get("skipped").get("ALREADY_REPLAYED").asLong());

    r = send(port, "POST", "/admin/dlq/replay", "WRITE", "{\"provider\":\"pay\",\"dryRun\":false}");
    assertEquals(200, r.statusCode(), r.body());
    assertFalse(dry.get());
    assertTrue(JSON.readTree(r.body()).has("sent"), r.body());

    for (String bad : List.of("{\"dryRun\":\"false\"}", "{\"limit\":\"5\"}", "{\"limit\":2.5}",
        "{\"limit\":5000}", "[]", "{\"reason\":7}")) {
      dry.set(null);
      assertEquals(400, send(port, "POST", "/admin/dlq/replay", "WRITE", bad).statusCode(), bad);
      assertEquals(null, dry.get(), bad);
    }
  }

  @Test
  @DisplayName("one scan at a time: a second request while one reads is 429, so the ops port keeps a thread")
  void oneScanAtATime() throws Exception {
    int port = port(new DeadLetterRoutes(source, new TopicScans()));
    hold = new CountDownLatch(1);
    entered = new CountDownLatch(1);
    CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> {
      try {
        return send(port, "GET", "/admin/dlq", "READ", null);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertTrue(entered.await(10, TimeUnit.SECONDS));
    HttpResponse<String> second = send(port, "POST", "/admin/dlq/replay", "WRITE", "{}");
    assertEquals(429, second.statusCode(), second.body());
    assertEquals("10", second.headers().firstValue("Retry-After").orElse(null));
    hold.countDown();
    assertEquals(200, first.get(10, TimeUnit.SECONDS).statusCode());
    assertEquals(200, send(port, "GET", "/admin/dlq", "READ", null).statusCode());
  }
}
