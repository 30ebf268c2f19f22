package io.sluice.app.admin;

import com.sun.net.httpserver.HttpExchange;
import io.sluice.app.trace.EventTrace;
import io.sluice.app.trace.TopicSearch;
import io.sluice.config.DelayText;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.pause.OperatorText;
import io.sluice.schemas.validation.EventValidator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.kafka.common.KafkaException;

/**
 * One event's journey on the admin API, as {@code sluice trace ID} gives it (the same code,
 * {@link EventTrace}): {@code GET /admin/events/ID[?since=24h]} answers
 * {@code {"id", "found", "stages": [{"at", "where", "what", "details"}], "recordsRead",
 * "bounded"}}, 200 when a record of the event was found and 404 (the same body, with
 * {@code "error"}) when none was; the read or the write token.
 *
 * <p>The id is an operator's input and is taken as hostile: percent-decoded from the path as one
 * segment, it must be an id the event contract accepts ({@link EventValidator#idProblem}: 1 to 128
 * printable ASCII characters), else 400; an event refused for its id is found with
 * {@code /admin/dlq}. Bounds: {@code since} ({@link DelayText}, as {@code 90s}, {@code 6h},
 * {@code 7d}) from 1 s to {@link #MAX_SINCE}, default {@link #DEFAULT_SINCE}; at most
 * {@value #MAX_RECORDS} records read and {@link DeadLetterRoutes#SCAN_TIMEOUT} spent, metadata
 * calls included (a search stopped by a bound says {@code "bounded": true}); one scan at a time
 * per instance, shared with the dead-letter routes ({@link TopicScans}).
 */
record EventRoutes(EventRoutes.Source source, TopicScans scans) {
  static final String PREFIX = "/admin/events/";
  static final Duration DEFAULT_SINCE = Duration.ofHours(24);
  /** The longest any topic an event passes keeps its records (outcomes and dlq). */
  static final Duration MAX_SINCE = Duration.ofDays(30);
  static final long MAX_RECORDS = 2_000_000;
  /** Longest raw path segment read: an id of 128 characters, each percent-encoded. */
  private static final int MAX_RAW_ID = 3 * EventValidator.MAX_ID_LENGTH;

  /** What the route searches through: {@link EventTrace} against the cluster. */
  interface Source {
    EventTrace.Report trace(String id, TopicSearch.Bounds bounds);
  }

  /** The route against the cluster {@code config} names now. */
  static EventRoutes of(Supplier<SluiceConfig> config, Clock clock, TopicScans scans) {
    return new EventRoutes((id, bounds) -> EventTrace.trace(config.get(), id, bounds,
        clock.millis()), scans);
  }

  static boolean serves(String path) {
    return path.startsWith(PREFIX);
  }

  /** Answers {@code GET /admin/events/ID}; the token was checked (either serves). */
  void serve(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestMethod().equals("GET")) {
      AdminApi.notAllowed(exchange, "GET");
      return;
    }
    String id = id(exchange.getRequestURI().getRawPath().substring(PREFIX.length()));
    Duration since = since(AdminApi.query(exchange.getRequestURI().getRawQuery()).get("since"));
    scans.run(exchange, () -> {
      try {
        EventTrace.Report r = source.trace(id, new TopicSearch.Bounds(since, MAX_RECORDS,
            DeadLetterRoutes.SCAN_TIMEOUT));
        var body = EventTrace.json(r);
        if (!r.found()) {
          body.put("error", "no record of this event was found in the last "
              + DelayText.format(since) + (r.bounded() ? " (a bound stopped the search: narrow "
              + "with since)" : ""));
        }
        AdminApi.respond(exchange, r.found() ? 200 : 404, body);
      } catch (KafkaException e) {
        AdminApi.respond(exchange, 503, AdminApi.error("Kafka: " + OperatorText.clean(
            String.valueOf(e.getMessage()), 200)));
      }
    });
  }

  /**
   * The id in {@code raw}, one path segment percent-decoded as UTF-8 ({@code +} is itself).
   *
   * @throws IllegalArgumentException if it is not an id the event contract accepts
   */
  static String id(String raw) {
    if (raw.isEmpty() || raw.length() > MAX_RAW_ID || raw.indexOf('/') >= 0) {
      throw new IllegalArgumentException("expected /admin/events/ID with one event id of 1 to "
          + EventValidator.MAX_ID_LENGTH + " characters, percent-encoded");
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c <= 0x20 || c >= 0x7f) {
        throw new IllegalArgumentException("the event id must be percent-encoded ASCII in the "
            + "path");
      }
      if (c == '%') {
        int hi = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
        int lo = hi < 0 ? -1 : Character.digit(raw.charAt(i + 2), 16);
        if (lo < 0) {
          throw new IllegalArgumentException("the event id has a broken percent-encoding");
        }
        bytes.write(hi * 16 + lo);
        i += 2;
      } else {
        bytes.write(c);
      }
    }
    String id = bytes.toString(StandardCharsets.UTF_8);
    String problem = EventValidator.idProblem(id);
    if (problem != null) {
      throw new IllegalArgumentException("event id: " + problem);
    }
    return id;
  }

  /** How far back to look: {@code since} as {@link DelayText}, within 1 s and MAX_SINCE. */
  static Duration since(String text) {
    if (text == null || text.isEmpty()) {
      return DEFAULT_SINCE;
    }
    Duration d = DelayText.parse(text);
    if (d == null || d.compareTo(Duration.ofSeconds(1)) < 0 || d.compareTo(MAX_SINCE) > 0) {
      throw new IllegalArgumentException("since: expected a duration like 90s, 6h or 7d, from "
          + "1s to " + DelayText.format(MAX_SINCE));
    }
    return d;
  }
}
