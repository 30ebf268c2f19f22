package io.sluice.app.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** One journey's JSON, as {@code sluice trace --json} and {@code /admin/events/ID} give it. */
class EventTraceTest {
  @Test
  void shouldWriteTheJourneyAsJson() throws Exception {
    Map<String, String> details = new LinkedHashMap<>();
    details.put("attempt", "1");
    details.put("notBefore", "1970-01-01T00:00:08Z");
    EventTrace.Report r = new EventTrace.Report("e-1", List.of(
        new Journey.Stage(Instant.ofEpochMilli(1_000), "s.inbound-0@4", "produced", Map.of()),
        new Journey.Stage(Instant.ofEpochMilli(3_000), "s.delay.5s-0@7",
            "waits in s.delay.5s: provider_5xx", details)), 120, true);

    JsonNode json = Json.mapper().readTree(EventTrace.json(r).toString());

    assertEquals(Json.mapper().readTree("""
        {"id": "e-1", "found": true, "stages": [
          {"at": "1970-01-01T00:00:01Z", "where": "s.inbound-0@4", "what": "produced",
           "details": {}},
          {"at": "1970-01-01T00:00:03Z", "where": "s.delay.5s-0@7",
           "what": "waits in s.delay.5s: provider_5xx",
           "details": {"attempt": "1", "notBefore": "1970-01-01T00:00:08Z"}}],
         "recordsRead": 120, "bounded": true}"""), json);
    assertEquals(List.of("id", "found", "stages", "recordsRead", "bounded"),
        List.copyOf(iterable(json.fieldNames())));
  }

  @Test
  void shouldSearchEveryTopicAnEventPasses() {
    Topics topics = new Topics("s.", List.of(Duration.ofSeconds(5), Duration.ofMinutes(1)));
    assertEquals(List.of("s.inbound", "s.regate", "s.ready", "s.ready.high", "s.delay.5s",
        "s.delay.1m", "s.outcomes", "s.dlq"), EventTrace.searched(topics));
  }

  private static List<String> iterable(java.util.Iterator<String> it) {
    List<String> out = new java.util.ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }
}
