package io.sluice.app.trace;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What each record of one event says about its journey, oldest first. */
class JourneyTest {
  private static final Topics TOPICS = new Topics("s.", List.of(Duration.ofSeconds(5)));

  private static Journey.Sighting at(String topic, long t, Map<String, String> headers,
      String value) {
    return new Journey.Sighting(topic, 0, t, t, headers, value.getBytes(UTF_8));
  }

  @Test
  void shouldTellAnEventsStagesInTheOrderTheyHappened() {
    List<Journey.Stage> stages = Journey.of(TOPICS, List.of(
        at(TOPICS.outcomes(), 9_000, Map.of(), "{\"id\":\"e\",\"status\":200,\"attempts\":2}"),
        at(TOPICS.delay(Duration.ofSeconds(5)), 3_000, Map.of(HeaderNames.REASON, "provider_5xx",
            HeaderNames.ATTEMPT, "1", HeaderNames.NOT_BEFORE, "8000"), "{}"),
        at(TOPICS.ready(), 1_000, Map.of(HeaderNames.TIER, "pro"), "{}"),
        at(TOPICS.inbound(), 1_000, Map.of(), "{}"),
        at(TOPICS.ready(), 8_000, Map.of(HeaderNames.RETURN_TO, "s.ready"), "{}")));

    assertEquals(List.of("produced", "admitted by the gate",
        "waits in s.delay.5s: provider_5xx", "released to ready by the relay, at its time",
        "delivered"), stages.stream().map(Journey.Stage::what).toList());
    assertEquals(Map.of("attempt", "1", "notBefore", "1970-01-01T00:00:08Z"),
        stages.get(2).details());
    assertEquals("2", stages.get(4).details().get("attempts"));
    assertEquals("200", stages.get(4).details().get("status"));
    assertEquals("s.ready-0@1000", stages.get(1).where());
  }

  @Test
  void shouldTellTheGatesEtaOnlyOnTheRecordsOfItsDecision() {
    List<Journey.Stage> stages = Journey.of(TOPICS, List.of(
        at(TOPICS.delay(Duration.ofSeconds(5)), 1_000, Map.of(HeaderNames.REASON, "rate_limited",
            HeaderNames.ETA, "6000", HeaderNames.NOT_BEFORE, "6000"), "{}"),
        at(TOPICS.ready(), 6_000, Map.of(HeaderNames.RETURN_TO, "s.ready", HeaderNames.ETA,
            "6000"), "{}"),
        at(TOPICS.delay(Duration.ofSeconds(5)), 7_000, Map.of(HeaderNames.REASON, "provider_5xx",
            HeaderNames.ETA, "6000"), "{}")));

    assertEquals("1970-01-01T00:00:06Z", stages.get(0).details().get("eta"));
    assertEquals(null, stages.get(1).details().get("eta"), "the relay's release copies it");
    assertEquals(null, stages.get(2).details().get("eta"), "a retry copies it");
  }

  @Test
  void shouldTellADeadLettersReasonAndDetail() {
    Journey.Stage dead = Journey.of(TOPICS, List.of(at(TOPICS.dlq(), 5, Map.of(
        HeaderNames.REASON, "expired", HeaderNames.DETAIL, "deadline passed while parked"), "{}")))
        .get(0);
    assertEquals("dead-lettered: expired", dead.what());
    assertEquals("deadline passed while parked", dead.details().get("detail"));
  }
}
