package io.sluice.dispatcher.provider.auth;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local OAuth2 token endpoint (client credentials) and a provider that accepts only its live
 * tokens: tokens expire after {@code lifetimeSeconds}, the endpoint can be taken down (503) and
 * the provider can be told to refuse every token (401).
 */
final class TokenEndpoint implements AutoCloseable {
  static final String CLIENT_ID = "sluice-client";
  static final String CLIENT_SECRET = "cl1ent-5ecret:with/odd&chars";

  private final HttpServer server;
  private final Map<String, Long> expiresAt = new ConcurrentHashMap<>();
  final List<String> tokenRequests = new CopyOnWriteArrayList<>();
  final List<String> authorizations = new CopyOnWriteArrayList<>();
  final AtomicInteger issued = new AtomicInteger();
  final AtomicInteger calls = new AtomicInteger();
  final AtomicInteger refusedCalls = new AtomicInteger();
  volatile long lifetimeSeconds;
  volatile boolean down;
  volatile boolean refuseAll;

  TokenEndpoint(long lifetimeSeconds) throws IOException {
    this.lifetimeSeconds = lifetimeSeconds;
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/token", exchange -> {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      tokenRequests.add(body);
      authorizations.add(exchange.getRequestHeaders().getFirst("Authorization"));
      byte[] answer;
      int status;
      String expected = "Basic " + java.util.Base64.getEncoder().encodeToString((CLIENT_ID + ":"
          + java.net.URLEncoder.encode(CLIENT_SECRET, StandardCharsets.UTF_8))
          .getBytes(StandardCharsets.UTF_8));
      if (down) {
        status = 503;
        answer = ("{\"error\":\"temporarily_unavailable\",\"echo\":\"" + CLIENT_SECRET + "\"}")
            .getBytes(StandardCharsets.UTF_8);
      } else if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        status = 401;
        answer = "{\"error\":\"invalid_client\"}".getBytes(StandardCharsets.UTF_8);
      } else {
        String token = "at-" + issued.incrementAndGet() + "-" + System.nanoTime();
        expiresAt.put(token, System.currentTimeMillis() + lifetimeSeconds * 1000);
        status = 200;
        answer = ("{\"access_token\":\"" + token + "\",\"token_type\":\"bearer\",\"expires_in\":"
            + lifetimeSeconds + "}").getBytes(StandardCharsets.UTF_8);
      }
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, answer.length);
      exchange.getResponseBody().write(answer);
      exchange.close();
    });
    server.createContext("/api", exchange -> {
      exchange.getRequestBody().readAllBytes();
      calls.incrementAndGet();
      String auth = exchange.getRequestHeaders().getFirst("Authorization");
      String token = auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : "";
      Long until = expiresAt.get(token);
      boolean valid = !refuseAll && until != null && System.currentTimeMillis() < until;
      if (!valid) {
        refusedCalls.incrementAndGet();
      }
      exchange.sendResponseHeaders(valid ? 200 : 401, -1);
      exchange.close();
    });
    server.start();
  }

  URI tokenUrl() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/token");
  }

  URI api() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api");
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
