package io.sluice.app.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.sluice.app.logging.Logging;
import io.sluice.dispatcher.pause.OperatorText;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Optional;

/**
 * The admin API's log levels, for {@link AdminApi} (which has already checked the client and the
 * token):
 * <ul>
 *   <li>{@code GET /admin/loggers}: the loggers with a level of their own, and the levels one may
 *       set; {@code GET /admin/loggers/NAME}: one logger's level and effective level. Read token.
 *   <li>{@code PUT /admin/loggers/NAME} with {@code {"level": "DEBUG"}} (or {@code null} to
 *       inherit the parent's): sets it at once, for this process, until it stops or is set again.
 *       Write token.
 * </ul>
 * A name is at most {@value Logging#MAX_NAME} characters of a logger name's alphabet, a body at
 * most {@value AdminApi#MAX_BODY} bytes; anything else is a 400 that never echoes more than a
 * cleaned 60 characters of it.
 */
final class LoggerRoutes {
  static final String PREFIX = "/admin/loggers";
  private static final ObjectMapper JSON = new ObjectMapper();

  private LoggerRoutes() {}

  /**
   * Serves the request if its path is under {@value #PREFIX}; false (nothing sent) otherwise.
   *
   * @param write whether the request came with the write token
   */
  static boolean serve(HttpExchange exchange, String path, boolean write) throws IOException {
    if (!path.equals(PREFIX) && !path.startsWith(PREFIX + "/")) {
      return false;
    }
    String name = path.length() > PREFIX.length() + 1 ? path.substring(PREFIX.length() + 1) : null;
    String method = exchange.getRequestMethod();
    try {
      if (method.equals("GET")) {
        AdminApi.respond(exchange, 200, name == null ? all() : one(Logging.level(name)));
      } else if (method.equals("PUT") && name != null) {
        if (!write) {
          AdminApi.respond(exchange, 403,
              AdminApi.error("setting a log level needs admin.writeToken"));
        } else {
          String level = level(exchange);
          Optional<String> refused = refusal(name, level);
          if (refused.isPresent()) {
            AdminApi.respond(exchange, 400, AdminApi.error(refused.get()));
          } else {
            AdminApi.respond(exchange, 200, one(Logging.set(name, level)));
          }
        }
      } else {
        AdminApi.notAllowed(exchange, name == null ? "GET" : "GET, PUT");
      }
    } catch (IllegalArgumentException e) {
      AdminApi.respond(exchange, 400, AdminApi.error(OperatorText.clean(e.getMessage(), 300)));
    }
    return true;
  }

  private static ObjectNode all() {
    ObjectNode out = JSON.createObjectNode();
    ArrayNode loggers = out.putArray("loggers");
    Logging.levels().forEach(l -> loggers.add(one(l)));
    ArrayNode levels = out.putArray("levels");
    Logging.LEVELS.forEach(levels::add);
    return out;
  }

  private static ObjectNode one(Logging.LoggerLevel l) {
    return JSON.createObjectNode().put("name", l.name()).put("level", l.level())
        .put("effective", l.effective());
  }

  /** Loggers that may be set below INFO through the API: Sluice's own. */
  static final String OWN = "io.sluice";

  /**
   * Why {@code level} may not be set on logger {@code name} through the API, or empty. Below
   * INFO (DEBUG, TRACE, ALL) only for Sluice's own loggers: a library's debug output (Lettuce's
   * commands on reconnect, with Redis's AUTH; Netty's and Kafka's wire bytes) may carry
   * credentials, and the write token is no licence to read them from the logs (issue 33). The
   * process's own configuration ({@code logging.level}, logback) still may.
   */
  static Optional<String> refusal(String name, String level) {
    if (level == null) {
      return Optional.empty();
    }
    String upper = level.toUpperCase(Locale.ROOT);
    boolean belowInfo = upper.equals("DEBUG") || upper.equals("TRACE") || upper.equals("ALL");
    boolean own = name.equals(OWN) || name.startsWith(OWN + ".");
    return belowInfo && !own
        ? Optional.of(upper + " is set through the API only on " + OWN + " loggers: a "
            + "library's debug output may carry credentials (set it in the logging configuration)")
        : Optional.empty();
  }

  /** The body's {@code level}: a string, or null to inherit. */
  private static String level(HttpExchange exchange) throws IOException {
    byte[] bytes;
    try (InputStream in = exchange.getRequestBody()) {
      bytes = in.readNBytes(AdminApi.MAX_BODY + 1);
    }
    JsonNode body;
    try {
      body = bytes.length > AdminApi.MAX_BODY ? null : JSON.readTree(bytes);
    } catch (IOException e) {
      body = null;
    }
    JsonNode level = body == null || !body.isObject() ? null : body.get("level");
    if (level == null || !(level.isTextual() || level.isNull())) {
      throw new IllegalArgumentException("the body must be a JSON object of at most "
          + AdminApi.MAX_BODY + " bytes like {\"level\": \"DEBUG\"}");
    }
    return level.isNull() ? null : level.textValue();
  }
}
