package io.sluice.app.ops;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * The web console's files under {@code /console/} (docs/console.md): {@code index.html},
 * {@code app.js} and {@code app.css} from the jar ({@code io/sluice/app/console/}), read once at
 * start. The console itself is plain JavaScript that calls the admin API with the token the
 * operator pastes; these files hold no data and no secret.
 *
 * <p>Only the names in {@link #FILES} are served: a request path is looked up in that map as a
 * whole, never joined to a directory, so {@code ..}, encoded slashes or other resources of the
 * jar cannot be reached. {@code /console} redirects to {@code /console/}; other methods than GET
 * and HEAD are 405.
 *
 * <p>Every answer carries {@link #CSP} (scripts, styles and connections from this origin only: no
 * inline script, so text the console shows can never run; no framing), {@code
 * X-Content-Type-Options: nosniff}, {@code Referrer-Policy: no-referrer} and {@code
 * Cache-Control: no-cache} (a browser asks again, so a new jar's console is not mixed with an
 * old one's).
 */
final class ConsoleFiles implements HttpHandler {
  /** Where the files are in the jar. */
  static final String RESOURCES = "/io/sluice/app/console/";
  /** Request path to file name and content type: all that is served. */
  static final Map<String, String[]> FILES = Map.of(
      "/console/", new String[] {"index.html", "text/html; charset=utf-8"},
      "/console/index.html", new String[] {"index.html", "text/html; charset=utf-8"},
      "/console/app.js", new String[] {"app.js", "text/javascript; charset=utf-8"},
      "/console/app.css", new String[] {"app.css", "text/css; charset=utf-8"});
  static final String CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; "
      + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private final Map<String, byte[]> bodies;

  /** @throws UncheckedIOException if a file is missing from the jar (a broken build) */
  public ConsoleFiles() {
    HashMap<String, byte[]> read = new HashMap<>();
    for (String[] file : FILES.values()) {
      read.computeIfAbsent(file[0], ConsoleFiles::resource);
    }
    this.bodies = Map.copyOf(read);
  }

  private static byte[] resource(String name) {
    try (InputStream in = ConsoleFiles.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new UncheckedIOException(new IOException("the console's " + name
            + " is not in the jar (" + RESOURCES + ")"));
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      Headers h = exchange.getResponseHeaders();
      h.set("Content-Security-Policy", CSP);
      h.set("X-Content-Type-Options", "nosniff");
      h.set("Referrer-Policy", "no-referrer");
      h.set("X-Frame-Options", "DENY");
      h.set("Cache-Control", "no-cache");
      String method = exchange.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        h.set("Allow", "GET, HEAD");
        send(exchange, 405, "text/plain; charset=utf-8", text("method not allowed"));
        return;
      }
      String path = exchange.getRequestURI().getRawPath();
      if (path.equals("/console")) {
        h.set("Location", "/console/");
        send(exchange, 308, "text/plain; charset=utf-8", text("see /console/"));
        return;
      }
      String[] file = FILES.get(path);
      if (file == null) {
        send(exchange, 404, "text/plain; charset=utf-8", text("not found: try /console/"));
        return;
      }
      send(exchange, 200, file[1], bodies.get(file[0]));
    }
  }

  private static byte[] text(String s) {
    return (s + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private static void send(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    if (exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(status, -1);
      return;
    }
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }
}
