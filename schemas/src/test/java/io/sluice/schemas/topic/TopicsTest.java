package io.sluice.schemas.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicsTest {
  private final Topics topics = new Topics("t.", List.of(Duration.ofSeconds(1), Duration.ofSeconds(30)));

  @Test
  void shouldNameEveryTopicUnderItsPrefix() {
    assertEquals(List.of("t.inbound", "t.regate", "t.ready", "t.ready.high", "t.outcomes", "t.dlq", "t.delay.1s", "t.delay.30s", "t.operator"), topics.all());
  }

  @Test
  void shouldGiveTheWorkTopicsOneCountAndTheAuditTopicsAnother() {
    assertEquals(Map.of("t.inbound", 4, "t.regate", 4, "t.ready", 4, "t.ready.high", 4, "t.delay.1s", 4, "t.delay.30s", 4, "t.outcomes", 1, "t.dlq", 1, "t.operator", 1),
        topics.partitionCounts(4, 1));
    assertEquals(topics.all().size(), topics.partitionCounts(4, 1).size(), "every topic, once");
  }

  @Test
  void shouldReturnDelayedRecordsOnlyToSluicesOwnTopicsNeverToInbound() {
    assertEquals(List.of("t.ready", "t.ready.high", "t.regate"), topics.returnTopics());
    assertEquals(topics.partitionCounts(4, 1).get("t.ready"), topics.partitionCounts(4, 1).get("t.ready.high"),
        "ready.high is keyed by tenant like ready: same partitions");
    assertEquals(topics.partitionCounts(4, 1).get("t.inbound"), topics.partitionCounts(4, 1).get("t.regate"),
        "regate is keyed by tenant like inbound: same partitions");
  }

  @Test
  void shouldCompactTheReplayLedgerAndKeepItForEverSoNoDeadLetterOutlivesItsRecord() {
    // A time bound on the ledger (it was twice the dlq's 30 days) is shorter than a dead-letter
    // topic an operator keeps longer: the dead letter would then be replayed a second time.
    Map<String, String> ledger = topics.configs(topics.replays(), (short) 3);
    assertEquals("t.replays", topics.replays());
    assertEquals("compact", ledger.get("cleanup.policy"), "compaction alone never deletes a key's last record");
    assertEquals("-1", ledger.get("retention.ms"));
  }

  @Test
  void shouldCompactTheOperatorStateAndNeverDeleteItByAge() {
    Map<String, String> operator = topics.configs(topics.operator(), (short) 3);
    assertEquals("t.operator", topics.operator());
    assertEquals("compact", operator.get("cleanup.policy"), "a tombstone removes a key, age never");
    assertEquals("-1", operator.get("retention.ms"));
    assertEquals("2", operator.get("min.insync.replicas"));
  }

  @Test
  void shouldKeepWorkTopicsAWeekAndTheAuditTrailThirtyDays() {
    long day = Duration.ofDays(1).toMillis();
    for (String work : List.of("t.inbound", "t.regate", "t.ready", "t.ready.high", "t.delay.1s", "t.delay.30s")) {
      assertEquals(String.valueOf(7 * day), topics.configs(work, (short) 3).get("retention.ms"), work);
    }
    for (String audit : List.of("t.outcomes", "t.dlq")) {
      assertEquals(String.valueOf(30 * day), topics.configs(audit, (short) 3).get("retention.ms"), audit);
    }
  }

  @Test
  void shouldKeepADelayStepAtLeastTenTimesItsStep() {
    Topics longLadder = new Topics("t.", List.of(Duration.ofDays(1)));

    assertEquals(String.valueOf(Duration.ofDays(10).toMillis()),
        longLadder.configs("t.delay.24h", (short) 1).get("retention.ms"));
  }

  @Test
  void shouldLetOnlyTheDeadLetterTopicTakeRecordsBeyondTheBrokerDefault() {
    assertEquals(String.valueOf(Topics.BROKER_DEFAULT_MAX_MESSAGE_BYTES + 64 * 1024),
        topics.configs("t.dlq", (short) 1).get("max.message.bytes"));
    for (String other : List.of("t.inbound", "t.ready", "t.outcomes", "t.delay.1s")) {
      assertFalse(topics.configs(other, (short) 1).containsKey("max.message.bytes"), other);
    }
  }

  @Test
  void shouldAskOneInSyncReplicaFewerThanTheReplicasAndAtLeastOne() {
    assertEquals("2", topics.configs("t.inbound", (short) 3).get("min.insync.replicas"));
    assertEquals("1", topics.configs("t.inbound", (short) 1).get("min.insync.replicas"));
    assertEquals("delete", topics.configs("t.inbound", (short) 1).get("cleanup.policy"));
  }

  @Test
  void shouldRefuseSettingsForATopicThatIsNotSluices() {
    assertThrows(IllegalArgumentException.class, () -> topics.configs("t.delay.2s", (short) 1));
    assertThrows(IllegalArgumentException.class, () -> topics.configs("other.inbound", (short) 1));
  }
}
