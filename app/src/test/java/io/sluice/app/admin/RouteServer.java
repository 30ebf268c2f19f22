package io.sluice.app.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Admin routes behind a real HTTP server on a free loopback port, two threads as the ops port
 * has, a bad request's {@link IllegalArgumentException} answered 400 as {@link AdminApi} does (the
 * token is the API's to check, not the routes').
 */
final class RouteServer implements AutoCloseable {
  /** What the server hands each request under {@code /admin/}. */
  interface Route {
    void serve(HttpExchange exchange) throws IOException;
  }

  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(2);

  private RouteServer(Route route) {
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(threads);
    server.createContext("/admin/", exchange -> {
      try {
        route.serve(exchange);
      } catch (IllegalArgumentException e) {
        AdminApi.respond(exchange, 400, AdminApi.error(e.getMessage()));
      } finally {
        exchange.close();
      }
    });
    server.start();
  }

  static RouteServer start(Route route) {
    return new RouteServer(route);
  }

  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
