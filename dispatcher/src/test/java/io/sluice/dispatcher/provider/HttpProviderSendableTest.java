package io.sluice.dispatcher.provider;

import static io.sluice.config.ProviderConfigBuilder.providerAt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.dispatcher.feedback.Backoff;
import io.sluice.dispatcher.feedback.FeedbackPolicy;
import io.sluice.dispatcher.feedback.Verdict;
import io.sluice.config.ProviderConfig;
import io.sluice.config.RedisDownPolicy;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.validation.EventValidator;
import io.sluice.schemas.validation.ValidationResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Input faults are decided at the gate, once: every id, attribute and path the gate's validator
 * accepts must be one {@link HttpProvider} can send, unchanged. Property-style: seeded random
 * events built from the pieces that break HTTP requests (CR/LF, control characters, non-ASCII,
 * '#', dot segments, bad escapes, separators), run through the validator; each accepted one must
 * give a request {@code java.net.http} builds, on the provider's host, below its base path, with
 * the id and attributes as written. A sample of them is sent over a socket and read back raw.
 */
class HttpProviderSendableTest {
  private static final URI BASE = URI.create("http://127.0.0.1:8081/hooks");
  private static final long SEED = 20261123L;
  private static final int EVENTS = 40_000;
  /** Names HttpProvider never forwards: java.net.http's restricted ones and those it sets itself. */
  private static final List<String> NEVER_FORWARDED = List.of("host", "content-length", "connection", "expect",
      "upgrade", "idempotency-key", "content-type", "transfer-encoding");

  private static final String[] PATH_PIECES = {"a", "Z", "0", "-", "_", "~", ".", "..", "/", "//", "?",
      "#", "%", "%2e", "%2E", "%41", "%4", "%zz", "%2f", ":", "@", ";", "=", "&", "+", "!", "$", "'", "(",
      ")", "*", ",", "\\", " ", "\t", "\r\n", "\n", "\r", "é", "😀", "[", "]", "{", "}", "|", "^", "`",
      "\"", "<", ">", "\u0000", "\u007f", "%0D%0A", "orders", "v1.2", ".well-known"};
  private static final String[] ID_PIECES = {"e", "Z", "9", " ", "-", "~", "!", "\"", "\\", "{", ":",
      "\t", "\r\n", "\n", "\r", "é", "\u00ff", "\u0100", "😀", "\u0000", "\u007f", "\u2028", "order-42"};
  private static final String[] NAME_PIECES = {"X", "-", "a", "0", "!", "#", "$", "%", "&", "'", "*", "+",
      ".", "^", "_", "`", "|", "~", " ", ":", "(", ")", "/", "@", "é", "\r\n", "\u0000", "\"", "Host",
      "Idempotency-Key", "Content-Length"};
  private static final String[] VALUE_PIECES = {"v", " ", "\t", "\r", "\n", "é", "\u00ff", "😀", "\u0000",
      "\u007f", ";", "=", "\"", ",", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"};

  private final EventValidator validator = new EventValidator();

  /**
   * Up to {@code max} pieces. Half the time only the printable-ASCII ones (dots, percent signs,
   * colons, '?' and the like still make many of those invalid), so that both verdicts are common.
   */
  private static String pieces(Random random, String[] from, int max) {
    boolean printableOnly = random.nextBoolean();
    StringBuilder out = new StringBuilder();
    int n = random.nextInt(max + 1);
    while (n > 0) {
      String piece = from[random.nextInt(from.length)];
      if (!printableOnly || piece.chars().allMatch(c -> c >= 0x20 && c <= 0x7e && c != '#' && c != '\\')) {
        out.append(piece);
        n--;
      }
    }
    return out.toString();
  }

  /** An inbound value with a random id, path and attributes; null fields are left out. */
  private static byte[] randomEvent(Random random) {
    ObjectNode event = Json.mapper().createObjectNode();
    event.put("id", random.nextInt(4) == 0 ? pieces(random, ID_PIECES, 6) : "order-" + random.nextInt(1000)
        + pieces(random, ID_PIECES, 2));
    event.put("tenant", "acme");
    event.put("provider", "payments-api");
    if (random.nextInt(5) > 0) {
      event.put("path", pieces(random, PATH_PIECES, 10));
    }
    if (random.nextBoolean()) {
      ObjectNode attributes = event.putObject("attributes");
      int count = 1 + random.nextInt(3);
      for (int i = 0; i < count; i++) {
        attributes.put(random.nextInt(3) == 0 ? pieces(random, NAME_PIECES, 4) : "X-A" + i,
            pieces(random, VALUE_PIECES, 5));
      }
    }
    try {
      return Json.mapper().writeValueAsBytes(event);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static HttpProvider providerForwarding(Iterable<String> names, HttpClient client) {
    List<String> forward = new ArrayList<>();
    names.forEach(forward::add);
    ProviderConfig config = providerAt(BASE).onRedisDown(RedisDownPolicy.FAIL_CLOSED)
        .forwardHeaders(forward).maxCost(10).build();
    return new HttpProvider(config, client);
  }

  private static HttpProvider providerForwarding(Iterable<String> names) {
    return providerForwarding(names, HttpProvider.defaultClient(Duration.ofSeconds(1)));
  }

  private List<WorkEvent> acceptedEvents() {
    Random random = new Random(SEED);
    List<WorkEvent> accepted = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      if (validator.validate(randomEvent(random)) instanceof ValidationResult.Valid v) {
        accepted.add(v.event());
      }
    }
    return accepted;
  }

  @Test
  void shouldBuildARequestForEveryIdAttributeAndPathTheValidatorAccepts() {
    List<WorkEvent> accepted = acceptedEvents();
    // The property means something only when both verdicts are frequent.
    assertTrue(accepted.size() > EVENTS / 10, "accepted " + accepted.size() + " of " + EVENTS);
    assertTrue(accepted.size() < EVENTS * 9 / 10, "accepted " + accepted.size() + " of " + EVENTS);
    System.out.printf("HttpProviderSendableTest: %d of %d random events accepted, every one sendable%n",
        accepted.size(), EVENTS);
    long withPath = accepted.stream().filter(e -> e.path() != null && !e.path().isEmpty()).count();
    long withAttributes = accepted.stream().filter(e -> !e.attributes().isEmpty()).count();
    assertTrue(withPath > 500 && withAttributes > 500, withPath + " paths, " + withAttributes + " attributes");

    for (WorkEvent event : accepted) {
      HttpRequest request;
      try {
        request = providerForwarding(event.attributes().keySet())
            .request(new ProviderCall(event.id(), event.path(), new byte[] {'{', '}'}, event.attributes(), 1));
      } catch (IllegalArgumentException e) {
        fail("the gate accepted an event HttpProvider cannot send: " + event + ": " + e.getMessage());
        return;
      }
      URI uri = request.uri();
      assertEquals(BASE.getScheme(), uri.getScheme(), event::toString);
      assertEquals(BASE.getHost(), uri.getHost(), event::toString);
      assertEquals(BASE.getPort(), uri.getPort(), event::toString);
      assertTrue(uri.getRawPath().equals(BASE.getRawPath()) || uri.getRawPath().startsWith(BASE.getRawPath() + "/"),
          () -> "below the base path: " + uri);
      for (String segment : uri.getRawPath().split("/", -1)) {
        String bare = segment.replace("%2e", ".").replace("%2E", ".");
        bare = bare.contains(";") ? bare.substring(0, bare.indexOf(';')) : bare;
        assertTrue(!bare.equals(".") && !bare.equals(".."), () -> "no segment a server would remove: " + uri);
      }
      assertNull(uri.getRawFragment(), () -> "nothing that would not be sent: " + uri);
      // As written: java.net.http would strip spaces around a value, so the rules refuse them.
      assertEquals(event.id(), request.headers().firstValue("Idempotency-Key").orElseThrow(), event::toString);
      assertEquals(1, request.headers().allValues("Idempotency-Key").size(), event::toString);
      for (Map.Entry<String, String> a : event.attributes().entrySet()) {
        String lower = a.getKey().toLowerCase(java.util.Locale.ROOT);
        if (!NEVER_FORWARDED.contains(lower)) {
          assertTrue(request.headers().allValues(a.getKey()).contains(a.getValue()), event::toString);
        }
      }
    }
  }

  /**
   * On the wire: a sample of the accepted events sent to a plain socket server that records each
   * request's head byte for byte (an HTTP server library would re-parse and normalise it).
   */
  @Test
  void shouldPutTheIdPathAndAttributesOnTheWireAsWritten() throws Exception {
    try (RawHttpServer server = new RawHttpServer()) {
      URI base = URI.create("http://127.0.0.1:" + server.port() + "/hooks");
      HttpClient client = HttpProvider.defaultClient(Duration.ofSeconds(2));
      for (WorkEvent event : acceptedEvents().subList(0, 300)) {
        ProviderConfig config = providerAt(base).onRedisDown(RedisDownPolicy.FAIL_CLOSED)
            .forwardHeaders(new ArrayList<>(event.attributes().keySet())).maxCost(10).build();
        ProviderCall call = new ProviderCall(event.id(), event.path(), new byte[] {'{', '}'}, event.attributes(), 1);
        HttpProvider provider = new HttpProvider(config, client);
        ProviderResult result = provider.call(call).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(204, assertInstanceOf(ProviderResult.Answered.class, result, event::toString)
            .status(), event::toString);
        List<String> head = server.next();
        URI sent = provider.request(call).uri();
        // java.net.http sends an empty query ("a?") as none ("a"): the only difference allowed.
        String query = sent.getRawQuery() == null || sent.getRawQuery().isEmpty() ? "" : "?" + sent.getRawQuery();
        assertEquals("POST " + sent.getRawPath() + query + " HTTP/1.1", head.get(0), event::toString);
        assertTrue(sent.getRawPath().equals("/hooks") || sent.getRawPath().equals("/hooks/" + rest(event.path())),
            () -> "the path as written: " + event.path() + " -> " + sent);
        assertEquals(List.of(event.id()), values(head, "Idempotency-Key"), event::toString);
        for (Map.Entry<String, String> a : event.attributes().entrySet()) {
          if (!NEVER_FORWARDED.contains(a.getKey().toLowerCase(java.util.Locale.ROOT))) {
            assertTrue(values(head, a.getKey()).contains(a.getValue()),
                () -> a + " as written in " + head + " for " + event);
          }
        }
      }
    }
  }

  /** The path without its query and one optional leading '/', as it follows the base path. */
  private static String rest(String path) {
    String p = path.startsWith("/") ? path.substring(1) : path;
    int q = p.indexOf('?');
    return q < 0 ? p : p.substring(0, q);
  }

  /** Every value of a header in a raw request head (names without case, values exactly). */
  private static List<String> values(List<String> head, String name) {
    List<String> found = new ArrayList<>();
    for (String line : head.subList(1, head.size())) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
        String value = line.substring(colon + 1);
        found.add(value.startsWith(" ") ? value.substring(1) : value);
      }
    }
    return found;
  }

  /**
   * A minimal HTTP/1.1 server on a plain socket: records each request's head lines exactly as
   * received, skips its body, answers 204, keeps the connection open for the next request.
   */
  private static final class RawHttpServer implements AutoCloseable {
    private final java.net.ServerSocket socket = new java.net.ServerSocket(0, 50,
        java.net.InetAddress.getLoopbackAddress());
    private final BlockingQueue<List<String>> heads = new java.util.concurrent.LinkedBlockingQueue<>();
    private final Thread acceptor = new Thread(this::acceptAll, "raw-http-accept");

    RawHttpServer() throws java.io.IOException {
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    List<String> next() throws InterruptedException {
      List<String> head = heads.poll(10, TimeUnit.SECONDS);
      if (head == null) {
        throw new AssertionError("no request reached the server within 10 s");
      }
      return head;
    }

    private void acceptAll() {
      while (!socket.isClosed()) {
        try {
          java.net.Socket connection = socket.accept();
          Thread t = new Thread(() -> serve(connection), "raw-http-conn");
          t.setDaemon(true);
          t.start();
        } catch (java.io.IOException closed) {
          return;
        }
      }
    }

    private void serve(java.net.Socket connection) {
      try (connection) {
        java.io.InputStream in = new java.io.BufferedInputStream(connection.getInputStream());
        while (true) {
          List<String> head = new ArrayList<>();
          String line;
          while ((line = readLine(in)) != null && !line.isEmpty()) {
            head.add(line);
          }
          if (line == null) {
            return;
          }
          long length = values(head, "Content-Length").stream().mapToLong(Long::parseLong).findFirst().orElse(0);
          in.readNBytes((int) length);
          heads.add(head);
          connection.getOutputStream().write("HTTP/1.1 204 No Content\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
          connection.getOutputStream().flush();
        }
      } catch (java.io.IOException e) {
        // the client closed the connection
      }
    }

    /** One line up to CRLF, bytes as ISO-8859-1 (so nothing is decoded away); null at the end. */
    private static String readLine(java.io.InputStream in) throws java.io.IOException {
      java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
      int b;
      while ((b = in.read()) >= 0) {
        if (b == '\n') {
          byte[] bytes = line.toByteArray();
          int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
          return new String(bytes, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        line.write(b);
      }
      return null;
    }

    @Override
    public void close() throws java.io.IOException {
      socket.close();
    }
  }

  /** The last line of defence, for a record that reached the dispatcher without the gate. */
  @Test
  void shouldEndAnUnsendableCallAsInvalidWithoutAnAttemptNeverAsAConnectionError() throws Exception {
    HttpProvider provider = providerForwarding(List.of("X-Note"));
    List<ProviderCall> unsendable = List.of(
        new ProviderCall("evt-1\r\nX-Injected: 1", null, new byte[0], Map.of(), 1),
        new ProviderCall("заказ-42", null, new byte[0], Map.of(), 1),
        new ProviderCall("evt-1", null, new byte[0], Map.of("X-Note", "a\r\nb"), 1),
        new ProviderCall("evt-1", "a#b#c", new byte[0], Map.of(), 1),
        new ProviderCall("evt-1", "../admin", new byte[0], Map.of(), 1),
        new ProviderCall("evt-1", "//evil.example/x", new byte[0], Map.of(), 1));
    FeedbackPolicy policy = new FeedbackPolicy(8, new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10)));
    for (ProviderCall call : unsendable) {
      ProviderResult result = provider.call(call).toCompletableFuture().get(5, TimeUnit.SECONDS);
      ProviderResult.Unsendable refused = assertInstanceOf(ProviderResult.Unsendable.class, result, call::toString);
      assertTrue(refused.detail().chars().noneMatch(c -> c < 0x20), "no CR/LF reaches a log: " + refused.detail());
      Verdict verdict = policy.judge(result, 2, null, Instant.parse("2026-11-23T10:00:00Z"), () -> 0.5);
      Verdict.Dead dead = assertInstanceOf(Verdict.Dead.class, verdict, call::toString);
      assertEquals(Reason.INVALID, dead.reason());
      assertEquals(2, dead.attempts(), "no provider attempt was made");
    }
  }
}
