package io.sluice.app.ops;

import com.codahale.metrics.MetricRegistry;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.sluice.config.ConfigDefaults;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The operations endpoint of an instance, on the JDK's built-in HTTP server:
 * <ul>
 *   <li>{@code GET /metrics}: the registry in Prometheus text format ({@link PrometheusExposition}),
 *       {@code Content-Type: text/plain; version=0.0.4}.</li>
 *   <li>{@code GET /ready}: {@link HealthReport} as JSON (dependencies and roles), HTTP 200 when
 *       UP and 503 when DOWN, so a load balancer or readiness probe can read the status code
 *       alone.</li>
 *   <li>{@code GET /health}: the same as {@code /ready}, kept for the probes written before
 *       {@code /live} and {@code /ready} existed.</li>
 *   <li>{@code GET /live}: {@link HealthReport#liveness()}, the roles alone: 503 only when a role
 *       failed more often than its supervisor restarts it (the process is exiting). Never down
 *       for Kafka or Redis, so a liveness probe or restart policy can use it.</li>
 * </ul>
 * and, when given, the admin API under {@code /admin/} ({@code io.sluice.app.admin.AdminApi},
 * which answers its own paths, methods and tokens) with the web console beside it at
 * {@code /console/} ({@link ConsoleFiles}). Anything else is 404; other methods than GET
 * and HEAD are 405.
 *
 * <p>No client can hold the port ({@link OpsExchanges}): every exchange has a thread of its own,
 * at most {@link OpsExchanges#MAX_EXCHANGES} at once (past it, the one reading its request
 * longest is cut to make room), and a request not read within
 * {@link OpsExchanges#READ_DEADLINE} of its first byte has its socket cut; so a slow
 * {@code /health} (a dependency timing out) does not hold up a {@code /metrics} scrape, and 200
 * sockets sending a byte now and then do not hold up {@code /live} (the headers are read before
 * any handler or token check runs, hence the deadline below the handlers). {@link #close()} stops
 * at once (in-flight exchanges are cut; this is an operations port, not a data path) and shuts
 * the threads down.
 */
public final class OpsServer implements AutoCloseable {
  private final HttpServer server;
  private final OpsExchanges executor;

  private OpsServer(HttpServer server, OpsExchanges executor) {
    this.server = server;
    this.executor = executor;
  }

  /** As {@link #start(String, int, MetricRegistry, Health)} on the default address, 127.0.0.1. */
  public static OpsServer start(int port, MetricRegistry registry, Health health) {
    return start(ConfigDefaults.HTTP_BIND, port, registry, health);
  }

  /**
   * Serves on {@code bind} ({@code http.bind}: 127.0.0.1 by default, so that only this host can
   * read the metrics and health; 0.0.0.0 for every interface) at {@code port} ({@code http.port};
   * 0 picks a free port, see {@link #port()}).
   *
   * @throws UncheckedIOException if the address cannot be bound or resolved (the message names
   *                              http.bind and http.port)
   */
  public static OpsServer start(String bind, int port, MetricRegistry registry, Health health) {
    return start(bind, port, registry, health, null);
  }

  /** As {@link #start(String, int, MetricRegistry, Health)}, with the admin API at {@code /admin/} (or none: null). */
  public static OpsServer start(String bind, int port, MetricRegistry registry, Health health,
      HttpHandler admin) {
    InetSocketAddress address = new InetSocketAddress(bind, port);
    if (address.isUnresolved()) {
      throw new UncheckedIOException("cannot serve /metrics and /health on " + bind + ":" + port
          + " (http.bind, http.port): no such host or address",
          new UnknownHostException(bind));
    }
    return start(address, new PrometheusExposition(registry), health::report, health::liveness,
        admin);
  }

  /**
   * As {@link #start(int, MetricRegistry, Health)}, with the address, exposition and health source
   * given; {@code /live} answers the liveness of that same report.
   */
  public static OpsServer start(InetSocketAddress address, PrometheusExposition metrics,
      Supplier<HealthReport> health) {
    return start(address, metrics, health, () -> health.get().liveness());
  }

  /** As {@link #start(InetSocketAddress, PrometheusExposition, Supplier)}, with {@code /live}'s source given. */
  public static OpsServer start(InetSocketAddress address, PrometheusExposition metrics,
      Supplier<HealthReport> health, Supplier<HealthReport> liveness) {
    return start(address, metrics, health, liveness, null);
  }

  /**
   * As {@link #start(InetSocketAddress, PrometheusExposition, Supplier, Supplier)}, with
   * {@code admin} (the admin API, {@code io.sluice.app.admin.AdminApi}) serving {@code /admin/},
   * or nothing there when null.
   */
  public static OpsServer start(InetSocketAddress address, PrometheusExposition metrics,
      Supplier<HealthReport> health, Supplier<HealthReport> liveness, HttpHandler admin) {
    HttpServer server;
    try {
      server = HttpServer.create(address, 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot serve /metrics and /health on " + address
          + " (http.bind, http.port): " + e.getMessage(), e);
    }
    OpsExchanges executor = new OpsExchanges();
    server.setExecutor(executor);
    server.createContext("/", exchange -> respond(exchange, 404, "text/plain; charset=utf-8",
        "not found: try /metrics, /ready, /live or /health\n")).getFilters().add(executor.filter());
    server.createContext("/metrics", guarded(exchange -> {
      if (exact(exchange, "/metrics")) {
        respond(exchange, 200, PrometheusExposition.CONTENT_TYPE, metrics.render());
      }
    })).getFilters().add(executor.filter());
    report(server, "/ready", health, executor);
    report(server, "/health", health, executor);
    report(server, "/live", liveness, executor);
    if (admin != null) {
      server.createContext("/admin/", admin).getFilters().add(executor.filter());
      server.createContext("/console", new ConsoleFiles()).getFilters().add(executor.filter());
    }
    server.start();
    return new OpsServer(server, executor);
  }

  /** Serves {@code report} at {@code path}: 200 when UP, 503 when DOWN. */
  private static void report(HttpServer server, String path, Supplier<HealthReport> report,
      OpsExchanges exchanges) {
    server.createContext(path, guarded(exchange -> {
      if (exact(exchange, path)) {
        HealthReport now = report.get();
        respond(exchange, now.up() ? 200 : 503, "application/json", now.toJson());
      }
    })).getFilters().add(exchanges.filter());
  }

  /** The port actually bound, useful after starting on port 0. */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.close();
  }

  /** Exchanges cut for reading their request too long (the deadline, or the cap), since start (for tests). */
  long cutForReadDeadline() {
    return executor.cut();
  }

  /**
   * A context matches every path under it ({@code /metricsfoo} too), so the path is checked here;
   * answers 404 or 405 itself and returns false when the handler should not run.
   */
  private static boolean exact(HttpExchange exchange, String path) throws IOException {
    if (!exchange.getRequestURI().getPath().equals(path)) {
      respond(exchange, 404, "text/plain; charset=utf-8", "not found: try /metrics, /ready, /live or /health\n");
      return false;
    }
    String method = exchange.getRequestMethod();
    if (!method.equals("GET") && !method.equals("HEAD")) {
      exchange.getResponseHeaders().set("Allow", "GET, HEAD");
      respond(exchange, 405, "text/plain; charset=utf-8", "method " + method + " not allowed\n");
      return false;
    }
    return true;
  }

  private static void respond(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    try (exchange) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", contentType);
      exchange.getResponseHeaders().set("Cache-Control", "no-store");
      if (exchange.getRequestMethod().equals("HEAD")) {
        exchange.sendResponseHeaders(status, -1);
        return;
      }
      exchange.sendResponseHeaders(status, bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /**
   * A handler that throws would leave the client with a reset connection and nothing to read;
   * answer 500 with the reason instead.
   */
  private static HttpHandler guarded(HttpHandler handler) {
    return exchange -> {
      try {
        handler.handle(exchange);
      } catch (RuntimeException e) {
        respond(exchange, 500, "text/plain; charset=utf-8", "internal error: " + e + "\n");
      }
    };
  }
}
