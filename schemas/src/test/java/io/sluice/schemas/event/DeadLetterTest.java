package io.sluice.schemas.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.serde.JsonSerde;
import io.sluice.schemas.serde.SchemaFiles;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class DeadLetterTest {
  private static final DeadLetter FULL = new DeadLetter("invalid",
      "field 'tenant' must match [A-Za-z0-9._:-]{1,128}, got \"a b\"", "sluice.inbound-3@1042",
      "evt-1", 1_700_000_000_000L, 2);

  @Test
  void shouldRoundTripThroughHeaders() {
    Headers headers = new RecordHeaders();

    FULL.writeTo(headers);

    assertEquals(FULL, DeadLetter.fromHeaders(headers));
  }

  @Test
  void shouldKeepTheOriginalHeadersAndReplaceEarlierSluiceValues() {
    Headers headers = new RecordHeaders();
    headers.add("traceparent", "00-abc-01".getBytes(StandardCharsets.UTF_8));
    HeaderValues.put(headers, HeaderNames.REASON, "rate_limited");
    HeaderValues.put(headers, HeaderNames.DETAIL, "deferred 2s");

    FULL.writeTo(headers);

    assertEquals(1L, count(headers, HeaderNames.REASON));
    assertEquals(1L, count(headers, HeaderNames.DETAIL));
    assertEquals(Optional.of("invalid"), HeaderValues.last(headers, HeaderNames.REASON));
    assertEquals(Optional.of("00-abc-01"), HeaderValues.last(headers, "traceparent"));
  }

  @Test
  void shouldLeaveHeadersItDoesNotKnowAboutWhenFieldsAreNull() {
    Headers headers = new RecordHeaders();
    HeaderValues.put(headers, HeaderNames.FIRST_SEEN, 1_700_000_000_000L);
    HeaderValues.put(headers, HeaderNames.ATTEMPT, 4);

    DeadLetter.of(Reason.MAX_ATTEMPTS, "gave up after 4 attempts", "sluice.ready-0@7")
        .writeTo(headers);

    assertEquals(new DeadLetter("max_attempts", "gave up after 4 attempts", "sluice.ready-0@7",
        null, 1_700_000_000_000L, 4), DeadLetter.fromHeaders(headers));
  }

  @Test
  void shouldRefuseToReadADeadLetterFromARecordWithoutAReason() {
    assertThrows(IllegalArgumentException.class, () -> DeadLetter.fromHeaders(new RecordHeaders()));
  }

  @Test
  void shouldFormatTheSourceAsTopicPartitionAtOffset() {
    assertEquals("sluice.inbound-3@1042", DeadLetter.source("sluice.inbound", 3, 1042));
  }

  @Test
  void shouldRoundTripThroughJson() {
    JsonSerde<DeadLetter> serde = JsonSerde.of(DeadLetter.class);

    assertEquals(FULL, serde.deserializer().deserialize("t", serde.serializer().serialize("t", FULL)));
  }

  @Test
  void shouldIgnoreUnknownJsonFieldsAndLeaveOutNullOnes() throws Exception {
    DeadLetter read = Json.mapper().readValue(
        "{\"reason\":\"expired\",\"detail\":\"past its deadline\",\"replayedBy\":\"ops\"}",
        DeadLetter.class);

    assertEquals(new DeadLetter("expired", "past its deadline", null, null, null, null), read);
    assertEquals("{\"reason\":\"expired\",\"detail\":\"past its deadline\"}",
        Json.mapper().writeValueAsString(read));
  }

  @Test
  void shouldWriteJsonThatSatisfiesTheDeadLetterSchema() {
    JsonSchema schema = SchemaFiles.compile(SchemaFiles.DEAD_LETTER);
    JsonNode json = Json.mapper().valueToTree(FULL);

    assertEquals(Set.of(), schema.validate(json));
  }

  @Test
  void shouldListExactlyTheReasonCodesOfTheEnumInTheSchema() {
    JsonNode codes = SchemaFiles.read(SchemaFiles.DEAD_LETTER).at("/properties/reason/enum");
    Set<String> inSchema = new TreeSet<>();
    codes.forEach(c -> inSchema.add(c.asText()));

    assertEquals(Arrays.stream(Reason.values()).map(Reason::code)
        .collect(Collectors.toCollection(TreeSet::new)), inSchema);
  }

  @Test
  void shouldExposeAKnownReasonAsTheEnum() {
    assertEquals(Optional.of(Reason.INVALID), FULL.reasonCode());
    assertEquals(Optional.empty(),
        new DeadLetter("from_the_future", null, null, null, null, null).reasonCode());
  }

  private static long count(Headers headers, String name) {
    return StreamSupport.stream(headers.headers(name).spliterator(), false).count();
  }
}
