package io.sluice.schemas.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ReadyTopicTest {
  private final Topics topics = new Topics("t.", List.of(Duration.ofSeconds(1)));

  @Test
  @DisplayName("a high event waits in ready.high, a normal or low one in ready")
  void shouldPutOnlyTheHighClassInItsOwnTopic() {
    assertEquals("t.ready.high", ReadyTopic.of(topics, Priority.HIGH));
    assertEquals("t.ready", ReadyTopic.of(topics, Priority.NORMAL));
    assertEquals("t.ready", ReadyTopic.of(topics, Priority.LOW));
  }

  @Test
  @DisplayName("a record returning to ready goes to its class's ready topic; any other return as written")
  void shouldSendAReleasedHighToReadyHigh() {
    Headers high = new RecordHeaders();
    ReadyTopic.stamp(high, Priority.HIGH);
    assertEquals("t.ready.high", ReadyTopic.releaseTo(topics, "t.ready", high), "a dispatcher retry of a high");
    assertEquals("t.ready.high", ReadyTopic.releaseTo(topics, "t.ready.high", high));
    assertEquals("t.regate", ReadyTopic.releaseTo(topics, "t.regate", high), "gated again first");
    assertEquals("t.ready", ReadyTopic.releaseTo(topics, "t.ready", new RecordHeaders()),
        "no header (normal, or written before the classes had topics): ready");
  }

  @Test
  @DisplayName("a class the header garbles is the default: the record is never lost for it")
  void shouldReadAnUnknownClassAsTheDefault() {
    Headers garbled = new RecordHeaders();
    HeaderValues.put(garbled, HeaderNames.PRIORITY, "HIGHEST");
    assertEquals(Priority.NORMAL, ReadyTopic.classOf(garbled));
  }

  @Test
  @DisplayName("the header carries the class once, and nothing for normal")
  void shouldStampTheClassOnce() {
    Headers headers = new RecordHeaders();
    ReadyTopic.stamp(headers, Priority.LOW);
    ReadyTopic.stamp(headers, Priority.HIGH);
    assertEquals(1, headers.toArray().length);
    assertEquals(Priority.HIGH, ReadyTopic.classOf(headers));
    ReadyTopic.stamp(headers, Priority.NORMAL);
    assertNull(headers.lastHeader(HeaderNames.PRIORITY));
  }
}
