package io.sluice.app.trace;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.Topics;
import java.util.ArrayList;
import java.util.List;

/**
 * One event's journey as {@code sluice trace ID} and {@code GET /admin/events/ID} give it: the
 * topics searched (every topic an event's records can be in), the search ({@link TopicSearch},
 * bounded), the stages ({@link Journey}), and one JSON form for both.
 */
public final class EventTrace {
  /** The journey of {@code id}: its stages oldest first, and how the search went. */
  public record Report(String id, List<Journey.Stage> stages, long recordsRead, boolean bounded) {
    public boolean found() {
      return !stages.isEmpty();
    }
  }

  private EventTrace() {}

  /** Where an event's records can be: inbound, regate, ready, ready.high, each delay step, outcomes, dlq. */
  public static List<String> searched(Topics topics) {
    List<String> out = new ArrayList<>(List.of(topics.inbound(), topics.regate()));
    out.addAll(topics.readyTopics());
    topics.ladder().forEach(step -> out.add(topics.delay(step)));
    out.addAll(List.of(topics.outcomes(), topics.dlq()));
    return out;
  }

  /** Searches {@code c}'s topics for {@code id}'s records within {@code bounds}. */
  public static Report trace(SluiceConfig c, String id, TopicSearch.Bounds bounds,
      long nowMillis) {
    Topics topics = new Topics(c.kafka().topicPrefix(), c.ladder());
    TopicSearch.Found found = TopicSearch.find(c.kafka(), searched(topics), id, bounds,
        nowMillis);
    return new Report(id, Journey.of(topics, found.sightings()), found.recordsRead(),
        found.bounded());
  }

  /**
   * The report as JSON: {@code {"id", "found", "stages": [{"at", "where", "what", "details"}],
   * "recordsRead", "bounded"}}, {@code at} an ISO-8601 instant, {@code details} a string map.
   */
  public static ObjectNode json(Report r) {
    ObjectNode out = Json.mapper().createObjectNode();
    out.put("id", r.id());
    out.put("found", r.found());
    ArrayNode stages = out.putArray("stages");
    for (Journey.Stage s : r.stages()) {
      ObjectNode o = stages.addObject();
      o.put("at", s.at().toString());
      o.put("where", s.where());
      o.put("what", s.what());
      ObjectNode details = o.putObject("details");
      s.details().forEach(details::put);
    }
    out.put("recordsRead", r.recordsRead());
    out.put("bounded", r.bounded());
    return out;
  }
}
