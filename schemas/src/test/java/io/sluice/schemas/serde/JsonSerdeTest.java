package io.sluice.schemas.serde;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schemas.event.WorkEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class JsonSerdeTest {
  private final JsonSerde<WorkEvent> serde = JsonSerde.of(WorkEvent.class);

  @Test
  void shouldRoundTripAWorkEventWithEveryField() throws Exception {
    WorkEvent event = new WorkEvent("evt-1", "acme", "payments-api", 3,
        Instant.parse("2030-01-01T00:00:00.123Z"), "orders/42",
        Json.mapper().readTree("{\"amount\": 1250, \"lines\": [1, 2.5, null]}"),
        Map.of("X-Request-Id", "req-7"));

    assertEquals(event, roundTrip(event));
  }

  @Test
  void shouldRoundTripAMinimalWorkEvent() {
    WorkEvent event = new WorkEvent("evt-1", "acme", "payments-api", 1, null, null, null, null);

    assertEquals(event, roundTrip(event));
  }

  @Test
  void shouldWriteTheDeadlineAsAnIsoInstantAndLeaveOutAbsentFields() {
    WorkEvent event = new WorkEvent("e", "t", "p", 1, Instant.parse("2030-01-01T00:00:00Z"),
        null, null, null);

    String json = new String(serde.serializer().serialize("sluice.inbound", event),
        StandardCharsets.UTF_8);

    assertTrue(json.contains("\"deadline\":\"2030-01-01T00:00:00Z\""), json);
    assertTrue(!json.contains("\"path\"") && !json.contains("\"payload\""), json);
  }

  @Test
  void shouldIgnoreUnknownFieldsSoProducersMayAddTheirOwn() {
    WorkEvent event = read("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":2,"
        + "\"rank\":5,\"meta\":{\"a\":[1]}}");

    assertEquals(new WorkEvent("e", "t", "p", 2, null, null, null, null), event);
  }

  @Test
  void shouldDefaultAnAbsentCostToOneRatherThanZero() {
    assertEquals(1, read("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\"}").cost());
  }

  @Test
  void shouldMapNullToNullBothWaysForTombstones() {
    assertNull(serde.serializer().serialize("t", null));
    assertNull(serde.deserializer().deserialize("t", null));
  }

  @Test
  void shouldThrowAClearSerializationExceptionOnBytesThatAreNotJson() {
    SerializationException e = assertThrows(SerializationException.class,
        () -> serde.deserializer().deserialize("sluice.ready",
            "{\"id\": oops}".getBytes(StandardCharsets.UTF_8)));

    assertTrue(e.getMessage().startsWith(
        "cannot read a WorkEvent from 12 bytes on topic sluice.ready: "), e.getMessage());
    assertTrue(e.getMessage().contains("line 1, column"), e.getMessage());
  }

  @Test
  void shouldThrowASerializationExceptionWhenJsonHasTheWrongShape() {
    assertThrows(SerializationException.class, () -> read("{\"cost\": \"many\"}"));
  }

  private WorkEvent roundTrip(WorkEvent event) {
    return serde.deserializer().deserialize("t", serde.serializer().serialize("t", event));
  }

  private WorkEvent read(String json) {
    return serde.deserializer().deserialize("t", json.getBytes(StandardCharsets.UTF_8));
  }
}
