package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.app.SluiceApp.Role;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Test;

/** Which topics' hanging transactions a process ends: what its roles read, and the receipts. */
class SweptTopicsTest {
  private final Topics topics = new Topics("sluice.", List.of(Duration.ofSeconds(5)));

  @Test
  void aGateWritingReceiptsEndsHangingTransactionsOnThemToo() {
    assertEquals(List.of(Topic.GROUP_METADATA_TOPIC_NAME, topics.inbound(), topics.regate(),
        topics.receipts()), SluiceApp.sweptTopics(Set.of(Role.GATE), topics, true));
  }

  @Test
  void aGateWithoutReceiptsSweepsOnlyWhatItReads() {
    assertEquals(List.of(Topic.GROUP_METADATA_TOPIC_NAME, topics.inbound(), topics.regate()),
        SluiceApp.sweptTopics(Set.of(Role.GATE), topics, false));
  }

  @Test
  void theReceiptsAreTheGatesAlone() {
    assertEquals(List.of(Topic.GROUP_METADATA_TOPIC_NAME, topics.delay(Duration.ofSeconds(5)),
        topics.ready(), topics.readyHigh()),
        SluiceApp.sweptTopics(Set.of(Role.RELAY, Role.DISPATCHER), topics, true));
  }
}
