package io.sluice.schemas.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class HeaderValuesTest {

  @Test
  void shouldReadTheLastValueBecauseARecordMayLoopThroughSluiceSeveralTimes() {
    Headers headers = new RecordHeaders();
    headers.add(HeaderNames.REASON, bytes("rate_limited"));
    headers.add(HeaderNames.REASON, bytes("max_attempts"));

    assertEquals(Optional.of("max_attempts"), HeaderValues.last(headers, HeaderNames.REASON));
  }

  @Test
  void shouldReplaceEveryEarlierValueOnPut() {
    Headers headers = new RecordHeaders();
    headers.add(HeaderNames.ATTEMPT, bytes("1"));
    headers.add(HeaderNames.ATTEMPT, bytes("2"));

    HeaderValues.put(headers, HeaderNames.ATTEMPT, 3);

    assertEquals(1, headers.toArray().length);
    assertEquals(Optional.of(3L), HeaderValues.lastLong(headers, HeaderNames.ATTEMPT));
  }

  @Test
  void shouldKeepOtherHeadersUntouchedOnPut() {
    Headers headers = new RecordHeaders();
    headers.add("traceparent", bytes("00-abc-01"));

    HeaderValues.put(headers, HeaderNames.TIER, "pro");

    assertEquals(Optional.of("00-abc-01"), HeaderValues.last(headers, "traceparent"));
    assertEquals(Optional.of("pro"), HeaderValues.last(headers, HeaderNames.TIER));
  }

  @Test
  void shouldWriteAndReadUtf8() {
    Headers headers = new RecordHeaders();

    HeaderValues.put(headers, HeaderNames.DETAIL, "field 'tenant' got \"acmé\"");

    assertEquals("field 'tenant' got \"acmé\"",
        new String(headers.lastHeader(HeaderNames.DETAIL).value(), StandardCharsets.UTF_8));
  }

  @Test
  void shouldReturnEmptyForAnAbsentANullOrAGarbledNumber() {
    Headers headers = new RecordHeaders();
    headers.add(HeaderNames.FIRST_SEEN, null);
    headers.add(HeaderNames.ATTEMPT, bytes("three"));

    assertEquals(Optional.empty(), HeaderValues.last(headers, HeaderNames.NOT_BEFORE));
    assertEquals(Optional.empty(), HeaderValues.last(headers, HeaderNames.FIRST_SEEN));
    assertEquals(Optional.empty(), HeaderValues.lastLong(headers, HeaderNames.ATTEMPT));
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
