package io.sluice.app.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.sluice.config.AdminConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.pause.OperatorText;
import io.sluice.dispatcher.pause.Pause;
import io.sluice.dispatcher.pause.PauseScope;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.redis.tenants.TenantRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The admin API, JSON under {@code /admin/} on the ops port:
 * <ul>
 *   <li>{@code GET /admin/status[?provider=P][&tenant=T]}: {@link StatusReader}'s status, with
 *       this instance's part ({@code "instance"}); needs the read or the write token.</li>
 *   <li>{@code POST /admin/pause} with {@code {"provider": P, "tenant": T, "reason": TEXT}}
 *       (provider or tenant or both) and {@code POST /admin/resume} with the same scope: as
 *       {@code sluice pause} and {@code sluice resume}; need the write token. The pause is made
 *       {@code by "admin-api@<client address>"}.</li>
 *   <li>{@code /admin/tenants...}: the tenant registry, {@link TenantRoutes}.</li>
 *   <li>{@code GET /admin/dlq} and {@code POST /admin/dlq/replay}: {@link DeadLetterRoutes}.</li>
 *   <li>{@code GET /admin/events/ID}: one event's journey through the topics, {@link EventRoutes}.</li>
 *   <li>{@code GET /admin/loggers[/NAME]} and {@code PUT /admin/loggers/NAME}: {@link LoggerRoutes}.</li>
 * </ul>
 *
 * <p>Refusals, in this order: 403 for a client on another host unless {@code admin.allowRemote};
 * 429 (with {@code Retry-After}) for an address that got too many tokens wrong, its token
 * unchecked until its wait is over ({@link FailedAttempts});
 * 401 (with {@code WWW-Authenticate: Bearer}) without a valid token, whatever the path; 403 for a
 * write with the read token; 404 and 405 for other paths and methods; 400 for a bad request
 * ({@link PauseRequest}) or a body that is not a JSON object of at most {@value #MAX_BODY} bytes;
 * 503 when Redis does not answer. Tokens are never logged or echoed ({@link AdminTokens}).
 */
public final class AdminApi implements HttpHandler {
  /** Longest request body read. */
  static final int MAX_BODY = 4_096;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The status as {@link StatusReader#read} gives it, plus this instance's part. */
  public interface StatusSource {
    ObjectNode status(Optional<String> provider, Optional<String> tenant);
  }

  private final AdminTokens tokens;
  private final boolean allowRemote;
  private final Supplier<SluiceConfig> config;
  private final StatusSource status;
  private final PauseStore pauses;
  /** Null when this API serves no tenant registry. */
  private final TenantRoutes tenants;
  private final DeadLetterRoutes deadLetters;
  private final EventRoutes events;
  private final FailedAttempts attempts = new FailedAttempts();
  private final Clock clock;

  public AdminApi(AdminConfig admin, Supplier<SluiceConfig> config, StatusSource status,
      PauseStore pauses) {
    this(admin, config, status, pauses, null);
  }

  public AdminApi(AdminConfig admin, Supplier<SluiceConfig> config, StatusSource status,
      PauseStore pauses, TenantRegistry tenants) {
    this(admin, config, status, pauses, tenants, Clock.systemUTC());
  }

  /** With the clock that times failed attempts' waits ({@link FailedAttempts}). */
  AdminApi(AdminConfig admin, Supplier<SluiceConfig> config, StatusSource status,
      PauseStore pauses, TenantRegistry tenants, Clock clock) {
    this.clock = clock;
    this.tenants = tenants == null ? null : new TenantRoutes(config, tenants);
    this.tokens = new AdminTokens(admin);
    this.allowRemote = admin.allowRemote();
    this.config = config;
    this.status = status;
    this.pauses = pauses;
    TopicScans scans = new TopicScans();
    this.deadLetters = DeadLetterRoutes.of(config, Clock.systemUTC(), scans);
    this.events = EventRoutes.of(config, Clock.systemUTC(), scans);
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try {
      serve(exchange);
    } catch (IllegalArgumentException | PauseStore.TooManyPauses | TenantRegistry.Full e) {
      respond(exchange, 400, error(OperatorText.clean(e.getMessage(), 300)));
    } catch (IllegalStateException e) {
      respond(exchange, 503, error(OperatorText.clean(e.getMessage(), 300)));
    } catch (RuntimeException e) {
      // Not echoed: an unexpected error's text could hold anything.
      respond(exchange, 500, error("internal error (" + e.getClass().getSimpleName() + ")"));
    } finally {
      exchange.close();
    }
  }

  private void serve(HttpExchange exchange) throws IOException {
    {
      if (!allowRemote && !exchange.getRemoteAddress().getAddress().isLoopbackAddress()) {
        respond(exchange, 403, error("the admin API serves this host only (admin.allowRemote)"));
        return;
      }
      String from = attemptKey(exchange.getRemoteAddress().getAddress());
      long now = clock.millis();
      Duration wait = attempts.waitFor(from, now);
      if (!wait.isZero()) {
        long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
        exchange.getResponseHeaders().set("Retry-After", Long.toString(seconds));
        respond(exchange, 429, error("too many wrong admin tokens from this address: the next "
            + "one is checked in " + seconds + " s"));
        return;
      }
      String authorization = exchange.getRequestHeaders().getFirst("Authorization");
      AdminTokens.Access access = tokens.access(authorization);
      if (access != AdminTokens.Access.NONE) {
        attempts.succeeded(from);
      } else if (authorization != null && tokens.configured()) {
        attempts.failed(from, now);
      }
      if (access == AdminTokens.Access.NONE) {
        exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"sluice-admin\"");
        respond(exchange, 401, error(tokens.configured()
            ? "a valid admin token is needed (Authorization: Bearer ...)"
            : "the admin API is off: set admin.readToken or admin.writeToken"));
        return;
      }
      String path = exchange.getRequestURI().getPath();
      String method = exchange.getRequestMethod();
      if (tenants != null && TenantRoutes.serves(path)) {
        tenants.serve(exchange, path, method, access == AdminTokens.Access.WRITE);
        return;
      }
      if (LoggerRoutes.serve(exchange, path, access == AdminTokens.Access.WRITE)) return;
      if (EventRoutes.serves(path)) {
        events.serve(exchange);
        return;
      }
      switch (path) {
        case "/admin/status" -> {
          if (!method.equals("GET")) {
            notAllowed(exchange, "GET");
            return;
          }
          Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
          String provider = query.get("provider");
          if (provider != null && !config.get().providers().containsKey(provider)) {
            respond(exchange, 400, error("no provider \"" + OperatorText.clean(provider, 60)
                + "\" is configured"));
            return;
          }
          String tenant = query.get("tenant");
          if (tenant != null) {
            PauseScope.checkName("tenant", tenant);
          }
          respond(exchange, 200, status.status(Optional.ofNullable(provider),
              Optional.ofNullable(tenant)));
        }
        case "/admin/pause", "/admin/resume" -> {
          if (!method.equals("POST")) {
            notAllowed(exchange, "POST");
            return;
          }
          if (access != AdminTokens.Access.WRITE) {
            respond(exchange, 403, error("pausing and resuming need admin.writeToken"));
            return;
          }
          JsonNode body = body(exchange);
          PauseRequest request = PauseRequest.of(config.get(), text(body, "provider"),
              text(body, "tenant"), text(body, "reason"));
          ObjectNode out = JSON.createObjectNode();
          if (path.equals("/admin/pause")) {
            Pause p = await(pauses.pause(request.scope(), "admin-api@"
                + exchange.getRemoteAddress().getAddress().getHostAddress(), request.reason()));
            out.put("paused", true);
            out.set("pause", StatusReader.pause(p));
          } else {
            out.put("resumed", await(pauses.resume(request.scope())));
            out.put("scope", request.scope().toString());
          }
          respond(exchange, 200, out);
        }
        case "/admin/dlq", "/admin/dlq/replay" -> deadLetters.serve(exchange, access);
        default -> respond(exchange, 404, error("not found: try /admin/status, POST /admin/pause, "
            + "POST /admin/resume, /admin/tenants, /admin/dlq, /admin/events/ID or "
            + "/admin/loggers"));
      }
    }
  }

  static void notAllowed(HttpExchange exchange, String allow) throws IOException {
    exchange.getResponseHeaders().set("Allow", allow);
    respond(exchange, 405, error("method " + OperatorText.clean(exchange.getRequestMethod(), 20)
        + " not allowed"));
  }

  /** The body as a JSON object, at most {@link #MAX_BODY} bytes. */
  static JsonNode body(HttpExchange exchange) throws IOException {
    byte[] bytes;
    try (InputStream in = exchange.getRequestBody()) {
      bytes = in.readNBytes(MAX_BODY + 1);
    }
    if (bytes.length > MAX_BODY) {
      throw new IllegalArgumentException("the body is longer than " + MAX_BODY + " bytes");
    }
    JsonNode node;
    try {
      node = JSON.readTree(bytes);
    } catch (IOException e) {
      throw new IllegalArgumentException("the body is not JSON");
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException("the body must be a JSON object");
    }
    return node;
  }

  /** A string field, or null when absent or null; anything else is refused. */
  static String text(JsonNode body, String field) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw new IllegalArgumentException("field '" + field + "' must be a string");
    }
    return v.textValue();
  }

  static Map<String, String> query(String raw) {
    Map<String, String> out = new HashMap<>();
    if (raw == null || raw.length() > MAX_BODY) {
      return out;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.putIfAbsent(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  static <T> T await(CompletionStage<T> stage) {
    try {
      return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof PauseStore.TooManyPauses t) {
        throw t;
      }
      if (e.getCause() instanceof TenantRegistry.Full t) {
        throw t;
      }
      throw new IllegalStateException("Redis did not carry out the request: " + e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("Redis did not answer within 5 s");
    }
  }

  static ObjectNode error(String message) {
    return JSON.createObjectNode().put("error", message);
  }

  /**
   * Whose failed attempts a request counts toward: its IPv4 address, or an IPv6 address's /64
   * (one host holds a whole /64 and could otherwise guess from each of its addresses in turn).
   */
  static String attemptKey(InetAddress address) {
    if (address instanceof Inet6Address) {
      return HexFormat.of().formatHex(Arrays.copyOf(address.getAddress(), 8)) + "::/64";
    }
    return address.getHostAddress();
  }

  static void respond(HttpExchange exchange, int code, ObjectNode body) throws IOException {
    byte[] bytes = (body.toString() + "\n").getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
