package io.sluice.gate;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class TooLargeOutputsTest {
  private static final String DLQ = "s.dlq";
  private static final String READY = "s.ready";

  private static TooLargeOutputs outputs(int maxRequest, Map<String, Integer> topicLimits) {
    TooLargeOutputs o = new TooLargeOutputs(DLQ, maxRequest, List.of(DLQ, READY));
    o.open(new TopicLimits(List.of(DLQ, READY), names -> topicLimits, null));
    return o;
  }

  private static ProducerRecord<byte[], byte[]> record(String topic, int valueBytes) {
    RecordHeaders h = new RecordHeaders();
    h.add("x-trace", "abc".getBytes(UTF_8));
    return new ProducerRecord<>(topic, null, 42L, "tenant".getBytes(UTF_8), new byte[valueBytes], h);
  }

  @Test
  void aRecordWithinEveryLimitIsSentAsItIs() {
    ProducerRecord<byte[], byte[]> r = record(READY, 1000);
    assertSame(r, outputs(10_000, Map.of(READY, 5_000, DLQ, 5_000)).sendable(r));
  }

  @Test
  void aRecordAboveTheProducersLimitBecomesAnInvalidDeadLetterWithoutItsValue() {
    ProducerRecord<byte[], byte[]> out = outputs(10_000, Map.of(READY, 50_000, DLQ, 50_000))
        .sendable(record(READY, 20_000));
    assertEquals(DLQ, out.topic());
    assertNull(out.value());
    assertArrayEquals("tenant".getBytes(UTF_8), out.key());
    assertEquals(42L, out.timestamp());
    assertEquals("abc", HeaderValues.last(out.headers(), "x-trace").orElseThrow(), "producer headers kept");
    DeadLetter d = DeadLetter.fromHeaders(out.headers());
    assertEquals("invalid", d.reason());
    assertTrue(d.detail().contains("without its value of 20000 bytes"), d.detail());
    assertTrue(d.detail().contains("max.request.size 10000"), d.detail());
  }

  @Test
  void anEventTooLargeToCarryIsNamedByItsIdSoThatItsEndCanBeFound() {
    String big = "x".repeat(20_000);
    byte[] value = ("{\"payload\":{\"id\":\"nested\",\"blob\":\"" + big + "\"},\"id\":\"ev-42\",\"tenant\":\"t\"}")
        .getBytes(UTF_8);
    ProducerRecord<byte[], byte[]> ready = new ProducerRecord<>(READY, null, 42L, null, value, new RecordHeaders());
    ProducerRecord<byte[], byte[]> out = outputs(10_000, Map.of()).sendable(ready);
    assertNull(out.value());
    assertEquals("ev-42", DeadLetter.fromHeaders(out.headers()).eventId(), "the top-level id, not the payload's");
  }

  @Test
  void anIdIsReadOnlyFromATopLevelString() {
    assertNull(TooLargeOutputs.idIn("{\"id\":7}".getBytes(UTF_8)));
    assertNull(TooLargeOutputs.idIn("[\"id\"]".getBytes(UTF_8)));
    assertNull(TooLargeOutputs.idIn(new byte[] {(byte) 0xff, 0x00}));
    assertNull(TooLargeOutputs.idIn(null));
    assertEquals("a", TooLargeOutputs.idIn("{\"x\":[1,{\"id\":\"b\"}],\"id\":\"a\"}".getBytes(UTF_8)));
  }

  @Test
  void aRecordAboveItsTopicsLimitIsCaughtBeforeSending() {
    ProducerRecord<byte[], byte[]> out = outputs(100_000, Map.of(READY, 50_000, DLQ, 5_000))
        .sendable(record(DLQ, 8_000));
    assertNull(out.value());
    assertTrue(DeadLetter.fromHeaders(out.headers()).detail().contains("max.message.bytes 5000"));
  }

  @Test
  void aDeadLetterKeepsItsReasonDetailAndSource() {
    ProducerRecord<byte[], byte[]> dead = record(DLQ, 20_000);
    new DeadLetter("unknown_tenant", "tenant 'x' is not configured", "s.inbound-3@7", "ev-1", 5L, null)
        .writeTo(dead.headers());
    ProducerRecord<byte[], byte[]> out = outputs(10_000, Map.of()).sendable(dead);
    DeadLetter d = DeadLetter.fromHeaders(out.headers());
    assertEquals("unknown_tenant", d.reason());
    assertEquals("s.inbound-3@7", d.source());
    assertEquals("ev-1", d.eventId());
    assertTrue(d.detail().startsWith("tenant 'x' is not configured; dead-lettered without its value"), d.detail());
    assertTrue(d.detail().endsWith("read at s.inbound-3@7"), d.detail());
  }

  @Test
  void headersTooLargeGoNextThenTheKey() {
    RecordHeaders h = new RecordHeaders();
    h.add("x-big", new byte[6_000]);
    HeaderValues.put(h, HeaderNames.EVENT_ID, "ev-2");
    ProducerRecord<byte[], byte[]> out = outputs(5_000, Map.of())
        .sendable(new ProducerRecord<>(READY, null, 1L, new byte[7_000], new byte[10], h));
    assertNull(out.key());
    assertTrue(HeaderValues.last(out.headers(), "x-big").isEmpty());
    assertEquals("ev-2", HeaderValues.last(out.headers(), HeaderNames.EVENT_ID).orElseThrow());
    String detail = DeadLetter.fromHeaders(out.headers()).detail();
    assertTrue(detail.contains("its producer's headers (6005 bytes), its key (7000 bytes)"), detail);
  }

  @Test
  void aRecordKafkaRefusedIsReplacedWhenItIsBuiltAgain() {
    TooLargeOutputs o = outputs(100_000, Map.of(READY, 50_000, DLQ, 50_000));
    ProducerRecord<byte[], byte[]> first = record(DLQ, 30_000);
    assertSame(first, o.sendable(first));
    o.remember(first, "Kafka refused it");
    ProducerRecord<byte[], byte[]> again = record(DLQ, 30_000);
    ProducerRecord<byte[], byte[]> out = o.sendable(again);
    assertNull(out.value());
    assertTrue(DeadLetter.fromHeaders(out.headers()).detail().contains("Kafka refused it"));
    ProducerRecord<byte[], byte[]> other = record(DLQ, 30_001);
    assertSame(other, o.sendable(other), "a different record is not mistaken for the refused one");
  }

  @Test
  void limitsTheBrokerCannotTellAreKafkasDefaultAndAskedAgainLater() {
    AtomicInteger asked = new AtomicInteger();
    TopicLimits limits = new TopicLimits(List.of(DLQ), names -> {
      asked.incrementAndGet();
      throw new IllegalStateException("broker down");
    }, null);
    assertEquals(OutputLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES, limits.of(DLQ));
    assertEquals(OutputLimits.BROKER_DEFAULT_MAX_MESSAGE_BYTES, limits.of(DLQ));
    assertEquals(1, asked.get(), "not asked again before " + TopicLimits.RETRY);
  }

  @Test
  void limitsAreAskedOnceAndThenReadByEveryThreadWithoutAskingAgain() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    TopicLimits limits = new TopicLimits(List.of(DLQ, READY), names -> {
      asked.incrementAndGet();
      return Map.of(DLQ, 5_000, READY, 7_000);
    }, null);
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(4);
    try {
      List<java.util.concurrent.Future<Integer>> answers = new java.util.ArrayList<>();
      for (int i = 0; i < 200; i++) {
        String topic = i % 2 == 0 ? DLQ : READY;
        answers.add(threads.submit(() -> limits.of(topic)));
      }
      for (int i = 0; i < answers.size(); i++) {
        assertEquals(i % 2 == 0 ? 5_000 : 7_000, answers.get(i).get());
      }
    } finally {
      threads.shutdown();
    }
    assertEquals(1, asked.get(), "every topic's limit came with the first answer");
  }

  @Test
  void aHeaderNameIsCountedInItsUtf8Bytes() {
    RecordHeaders ascii = new RecordHeaders();
    ascii.add("x-ab", new byte[3]);
    RecordHeaders accented = new RecordHeaders();
    accented.add("x-\u00e9\u00e9", new byte[3]);
    assertEquals(OutputLimits.upperBound(null, null, ascii) + 2, OutputLimits.upperBound(null, null, accented),
        "two letters of two bytes each");
  }

  @Test
  void theUpperBoundIsNeverBelowWhatKafkaCounts() {
    // A batch of one record: 61 bytes of batch header, then the record; Kafka's own estimate
    // (AbstractRecords.estimateSizeInBytesUpperBound) for key 6, value 1000, one header (7+3).
    RecordHeaders h = new RecordHeaders();
    h.add("x-trace", "abc".getBytes(UTF_8));
    int bound = OutputLimits.upperBound(new byte[6], new byte[1000], h);
    assertTrue(bound >= 61 + 1 + 1 + 1 + 1 + 1 + 6 + 2 + 1000 + 1 + 1 + 7 + 1 + 3, "bound " + bound);
    assertTrue(bound <= 61 + 6 + 1000 + 10 + 100, "and not far above: " + bound);
  }
}
