package io.sluice.schemas.topic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class WriterStampTest {

  private static ProducerRecord<Object, Object> record(Header... headers) {
    return new ProducerRecord<>("sluice.ready", 2, 17L, "tenant", "value",
        new RecordHeaders(headers));
  }

  @Test
  void stampsTheProducersTransactionalIdInPlaceOfAnyCopiedOrForgedOne() {
    WriterStamp stamp = new WriterStamp();
    stamp.configure(Map.of("transactional.id", "sluice.relay-1", "client.id", "c"));
    RecordHeaders input = new RecordHeaders(new Header[] {
        new RecordHeader("sluice-attempt", "2".getBytes(StandardCharsets.UTF_8)),
        new RecordHeader("Sluice-Writer", "sluice-gate-x-1".getBytes(StandardCharsets.UTF_8))});
    input.setReadOnly(); // as after an earlier send of the same headers

    ProducerRecord<Object, Object> out = stamp.onSend(new ProducerRecord<>("sluice.ready", 2, 17L,
        "tenant", "value", input));

    assertEquals(List.of("sluice-attempt", "sluice-writer"),
        java.util.Arrays.stream(out.headers().toArray()).map(Header::key).toList());
    assertArrayEquals("sluice.relay-1".getBytes(StandardCharsets.UTF_8),
        out.headers().lastHeader(HeaderNames.WRITER).value());
    assertEquals(record().topic(), out.topic());
    assertEquals(2, out.partition());
    assertEquals(17L, out.timestamp());
    assertEquals("tenant", out.key());
    assertEquals("value", out.value());
  }

  @Test
  void removesTheStampWhenTheProducerHasNoTransactionalId() {
    WriterStamp stamp = new WriterStamp();
    stamp.configure(Map.of("client.id", "c"));

    ProducerRecord<Object, Object> out = stamp.onSend(record(
        new RecordHeader("sluice-writer", "sluice.relay-1".getBytes(StandardCharsets.UTF_8))));

    assertNull(out.headers().lastHeader(HeaderNames.WRITER));
  }
}
