package io.sluice.schemas.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicsTest {
  private final Topics topics = new Topics("t.", List.of(Duration.ofSeconds(1), Duration.ofSeconds(30)));

  @Test
  void shouldNameEveryTopicUnderItsPrefix() {
    assertEquals(List.of("t.inbound", "t.regate", "t.ready", "t.outcomes", "t.dlq", "t.delay.1s", "t.delay.30s"), topics.all());
  }

  @Test
  void shouldGiveTheWorkTopicsOneCountAndTheAuditTopicsAnother() {
    assertEquals(Map.of("t.inbound", 4, "t.regate", 4, "t.ready", 4, "t.delay.1s", 4, "t.delay.30s", 4, "t.outcomes", 1, "t.dlq", 1),
        topics.partitionCounts(4, 1));
    assertEquals(topics.all().size(), topics.partitionCounts(4, 1).size(), "every topic, once");
  }

  @Test
  void shouldReturnDelayedRecordsOnlyToSluicesOwnTopicsNeverToInbound() {
    assertEquals(List.of("t.ready", "t.regate"), topics.returnTopics());
    assertEquals(topics.partitionCounts(4, 1).get("t.inbound"), topics.partitionCounts(4, 1).get("t.regate"),
        "regate is keyed by tenant like inbound: same partitions");
  }
}
