package io.sluice.app.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import io.sluice.app.dlq.DeadLetterQuery;
import io.sluice.app.dlq.DlqOperations;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.pause.OperatorText;
import io.sluice.schemas.topic.Topics;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.KafkaException;

/**
 * The dead letters on the admin API, as {@code sluice dlq list|replay} (the same code: the same
 * reading and the same replay ledger, so a replay from here and one from the command line never
 * send a dead letter twice between them):
 * <ul>
 *   <li>{@code GET /admin/dlq?reason=R&provider=P&tenant=T&since=1h&limit=N}: the dead letters the
 *       filters select, {@code {"deadLetters": [...], "read": n, "timedOut": bool}}; the read or
 *       the write token.</li>
 *   <li>{@code POST /admin/dlq/replay} with {@code {"reason", "provider", "tenant", "since",
 *       "limit", "dryRun"}}: sends the selected originals back to inbound through the gate, or
 *       with {@code "dryRun": true} (the default: a replay is only made when asked for with
 *       {@code "dryRun": false}) says which it would send; the write token.</li>
 * </ul>
 *
 * <p>Bounds, as the ops port has two threads and a scan holds one: {@code limit} 1 to
 * {@value #MAX_LIMIT} (the command line allows more); a scan stops after {@link #SCAN_TIMEOUT}
 * and says so ({@code "timedOut": true}, narrow with {@code since}); one scan at a time per
 * instance ({@link TopicScans}, shared with {@link EventRoutes}), so {@code /metrics} and
 * {@code /admin/status} always have a thread. The filters are checked as the command line's
 * ({@link DeadLetterQuery}).
 */
final class DeadLetterRoutes {
  /** Most dead letters one request lists or replays. */
  static final int MAX_LIMIT = 1_000;
  /** Longest a request reads the dead-letter topic (and the ledger) for. */
  static final Duration SCAN_TIMEOUT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What the routes read and send through: {@link DlqOperations} against the cluster. */
  interface Source {
    DlqOperations.Listing list(DeadLetterQuery query, Duration timeout);

    DlqOperations.ReplayReport replay(DeadLetterQuery query, Duration timeout, boolean dryRun);
  }

  private final Source source;
  private final TopicScans scans;

  /** @param scans one scan at a time, shared with {@link EventRoutes} */
  DeadLetterRoutes(Source source, TopicScans scans) {
    this.source = source;
    this.scans = scans;
  }

  /** The routes against the cluster {@code config} names now. */
  static DeadLetterRoutes of(Supplier<SluiceConfig> config, Clock clock, TopicScans scans) {
    return new DeadLetterRoutes(new Source() {
      @Override
      public DlqOperations.Listing list(DeadLetterQuery query, Duration timeout) {
        SluiceConfig c = config.get();
        return DlqOperations.list(c.kafka(), topics(c), query, clock.instant(), timeout);
      }

      @Override
      public DlqOperations.ReplayReport replay(DeadLetterQuery query, Duration timeout,
          boolean dryRun) {
        SluiceConfig c = config.get();
        return DlqOperations.replay(c.kafka(), topics(c), query, clock.instant(), timeout, dryRun);
      }
    }, scans);
  }

  private static Topics topics(SluiceConfig c) {
    return new Topics(c.kafka().topicPrefix(), c.ladder());
  }

  /** Answers {@code /admin/dlq} and {@code /admin/dlq/replay}; the token was checked. */
  void serve(HttpExchange exchange, AdminTokens.Access access) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String method = exchange.getRequestMethod();
    boolean replay = path.equals("/admin/dlq/replay");
    if (!method.equals(replay ? "POST" : "GET")) {
      AdminApi.notAllowed(exchange, replay ? "POST" : "GET");
      return;
    }
    if (replay && access != AdminTokens.Access.WRITE) {
      AdminApi.respond(exchange, 403, AdminApi.error("replaying dead letters needs "
          + "admin.writeToken"));
      return;
    }
    Filters f = replay ? Filters.of(AdminApi.body(exchange))
        : Filters.of(AdminApi.query(exchange.getRequestURI().getRawQuery()));
    scans.run(exchange, () -> {
      try {
        AdminApi.respond(exchange, 200, replay ? replayed(f) : listed(f));
      } catch (KafkaException e) {
        // A batch not committed is not in the ledger either: running the replay again is safe.
        AdminApi.respond(exchange, 503, AdminApi.error("Kafka: " + OperatorText.clean(
            String.valueOf(e.getMessage()), 200) + (replay ? "; what was committed is in the "
            + "ledger: replay again to send the rest" : "")));
      }
    });
  }

  private ObjectNode listed(Filters f) {
    DlqOperations.Listing l = source.list(f.query(), SCAN_TIMEOUT);
    ObjectNode out = JSON.createObjectNode();
    out.set("deadLetters", JSON.valueToTree(l.rows()));
    out.put("read", l.read());
    out.put("timedOut", l.timedOut());
    out.put("limit", f.query().limit());
    return out;
  }

  private ObjectNode replayed(Filters f) {
    DlqOperations.ReplayReport r = source.replay(f.query(), SCAN_TIMEOUT, f.dryRun());
    ObjectNode out = JSON.createObjectNode();
    out.put("dryRun", r.dryRun());
    out.set(r.dryRun() ? "wouldSend" : "sent", JSON.valueToTree(r.sent()));
    out.set("skipped", JSON.valueToTree(r.skipped()));
    out.put("read", r.read());
    out.put("more", r.full() || r.timedOut());
    return out;
  }

  /**
   * The filters of one request: {@link DeadLetterQuery}'s, an empty one as none, {@code limit}
   * at most {@link #MAX_LIMIT} (default {@link DeadLetterQuery#DEFAULT_LIMIT}).
   */
  record Filters(DeadLetterQuery query, boolean dryRun) {
    static Filters of(Map<String, String> q) {
      return new Filters(query(q.get("reason"), q.get("provider"), q.get("tenant"),
          q.get("since"), q.get("limit")), true);
    }

    static Filters of(JsonNode body) {
      JsonNode limit = body.get("limit");
      if (limit != null && !limit.isNull() && !limit.isIntegralNumber()) {
        throw new IllegalArgumentException("field 'limit' must be a whole number");
      }
      JsonNode dry = body.get("dryRun");
      if (dry != null && !dry.isNull() && !dry.isBoolean()) {
        throw new IllegalArgumentException("field 'dryRun' must be true or false");
      }
      return new Filters(query(AdminApi.text(body, "reason"), AdminApi.text(body, "provider"),
          AdminApi.text(body, "tenant"), AdminApi.text(body, "since"),
          limit == null || limit.isNull() ? null : limit.asText()),
          dry == null || dry.isNull() || dry.booleanValue());
    }

    private static DeadLetterQuery query(String reason, String provider, String tenant,
        String since, String limit) {
      int n = blank(limit) == null ? DeadLetterQuery.DEFAULT_LIMIT
          : limit.matches("\\d{1,7}") ? Integer.parseInt(limit) : -1;
      if (n < 1 || n > MAX_LIMIT) {
        throw new IllegalArgumentException("limit: expected 1 to " + MAX_LIMIT);
      }
      try {
        return DeadLetterQuery.parse(blank(reason), blank(provider), blank(tenant), blank(since),
            n);
      } catch (IllegalArgumentException e) {
        // The query speaks in the command line's options; here they are fields.
        throw new IllegalArgumentException(e.getMessage().replace("--", ""));
      }
    }

    private static String blank(String s) {
      return s == null || s.isEmpty() ? null : s;
    }
  }
}
