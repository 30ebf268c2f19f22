package io.sluice.app.dlq;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class DeadLetterEntryTest {
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  @Test
  void shouldReadTheReasonFromSluicesHeadersAndTheFiltersFromTheValue() {
    DeadLetterEntry e = Letters.letter(42, "non_retryable_4xx", "e-1", "acme", "payments-api",
        "2026-12-01T00:00:00Z", NOW);

    assertEquals("sluice.dlq-0@42", e.at());
    assertEquals("non_retryable_4xx", e.reason());
    assertEquals("provider answered 400", e.meta().detail());
    assertEquals("e-1", e.eventId());
    assertEquals("acme", e.tenant());
    assertEquals("payments-api", e.provider());
    assertEquals(Instant.parse("2026-12-01T00:00:00Z"), e.deadline());
  }

  @Test
  void shouldReplayTheOriginalBytesWithTheProducersHeadersAndTheMarkOnly() {
    DeadLetterEntry e = Letters.letter(42, "non_retryable_4xx", "e-1", "acme", "payments-api",
        null, NOW);

    ProducerRecord<byte[], byte[]> out =
        Replayer.inbound(new Topics("sluice.", List.of(Duration.ofSeconds(1))), e);

    assertEquals("sluice.inbound", out.topic());
    assertArrayEquals(e.key(), out.key());
    assertArrayEquals(e.value(), out.value(), "same bytes, so the same id and Idempotency-Key");
    List<String> names = new ArrayList<>();
    for (Header h : out.headers()) {
      names.add(h.key());
    }
    assertEquals(List.of("traceparent", ReplayMark.HEADER), names,
        "no sluice-* header: attempts, first-seen and tier start afresh");
    assertEquals("sluice.dlq-0@42",
        new String(out.headers().lastHeader(ReplayMark.HEADER).value(), StandardCharsets.UTF_8));
    assertTrue(!HeaderNames.isSluice(ReplayMark.HEADER), "the gate lets the mark through");
  }

  @Test
  void shouldReplaceTheMarkOfADeadLetterThatWasAReplayAlready() {
    RecordHeaders h = (RecordHeaders) Letters.headers("max_attempts", "e-1");
    h.add(ReplayMark.HEADER, "sluice.dlq-1@3".getBytes(StandardCharsets.UTF_8));
    DeadLetterEntry e = DeadLetterEntry.of(Letters.DLQ, 0, 9, 0L, null,
        Letters.event("e-1", "acme", "p", null).getBytes(StandardCharsets.UTF_8), h);

    assertEquals("sluice.dlq-1@3", e.replayOf());
    ProducerRecord<byte[], byte[]> out =
        Replayer.inbound(new Topics("sluice.", List.of(Duration.ofSeconds(1))), e);
    int marks = 0;
    for (Header x : out.headers().headers(ReplayMark.HEADER)) {
      marks++;
      assertEquals("sluice.dlq-0@9", new String(x.value(), StandardCharsets.UTF_8));
    }
    assertEquals(1, marks);
  }

  @Test
  void shouldReadWhatItCanOfAHostileValueAndNothingMore() {
    String deep = "{\"tenant\":\"acme\",\"payload\":" + "[".repeat(5_000) + "]".repeat(5_000)
        + ",\"provider\":\"p\"}";
    String[] values = {"not json", "[1,2]", "{\"id\":7,\"tenant\":{\"x\":1}}", deep,
        "{\"id\":\"a\",\"tenant\":\"acme\",\"deadline\":\"tomorrow\"", "\u0000\u0001"};
    for (String v : values) {
      DeadLetterEntry e = DeadLetterEntry.of(Letters.DLQ, 0, 1, 0L, null,
          v.getBytes(StandardCharsets.UTF_8), Letters.headers("invalid", null));
      assertNull(e.deadline(), v);
      assertEquals("invalid", e.reason(), v);
    }
    DeadLetterEntry numbers = DeadLetterEntry.of(Letters.DLQ, 0, 1, 0L,
        "key-tenant".getBytes(StandardCharsets.UTF_8),
        values[2].getBytes(StandardCharsets.UTF_8), Letters.headers("invalid", null));
    assertNull(numbers.eventId(), "a number is not an id");
    assertEquals("key-tenant", numbers.tenant(), "the key stands in for a tenant that is not text");
  }

  @Test
  void shouldPrintProducerTextWithoutItsControlCharacters() {
    DeadLetterEntry e = Letters.letter(1, "invalid", "e\u001b[31m", "acme", "p", null, NOW);

    String line = DeadLetterRow.of(e).line();

    assertTrue(!line.contains("\u001b"), line);
    assertTrue(line.contains("e?[31m"), line);
  }
}
