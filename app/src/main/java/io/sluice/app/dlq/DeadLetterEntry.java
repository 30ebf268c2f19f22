package io.sluice.app.dlq;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * One record of the dead-letter topic as the {@code dlq} commands see it: where it is, what Sluice
 * wrote about it ({@link DeadLetter}, from its {@code sluice-*} headers) and the few fields of the
 * original event the filters need, read from its value without trusting it.
 *
 * @param at        this dead letter's own coordinates, {@code <dlq>-<partition>@<offset>}: the key
 *                  of the replay ledger
 * @param time      the dead letter's record time (when it was dead-lettered)
 * @param meta      its reason, detail, source...; null when the record has no {@code sluice-reason}
 *                  (something other than Sluice wrote the topic)
 * @param key       the original key (the tenant, as producers key inbound)
 * @param value     the original value bytes; null when Sluice left the value out (too large for
 *                  the dead-letter topic) or the original had none
 * @param headers   the original headers with Sluice's added
 * @param eventId   the event id (Sluice's header, else the value's {@code id}); null if neither
 * @param tenant    the value's {@code tenant}, else the key as text; null if neither
 * @param provider  the value's {@code provider}; null when absent or the value is unreadable
 * @param deadline  the value's {@code deadline}; null when absent or not an instant
 * @param replayOf  the {@link ReplayMark} the record carries: it is a replay that died again
 */
public record DeadLetterEntry(String at, Instant time, DeadLetter meta, byte[] key, byte[] value,
    Headers headers, String eventId, String tenant, String provider, Instant deadline,
    String replayOf) {

  public static DeadLetterEntry of(ConsumerRecord<byte[], byte[]> r) {
    return of(r.topic(), r.partition(), r.offset(), r.timestamp(), r.key(), r.value(), r.headers());
  }

  /** A dead letter read at {@code topic-partition@offset}. */
  public static DeadLetterEntry of(String topic, int partition, long offset, long timestamp,
      byte[] key, byte[] value, Headers headers) {
    Headers copy = new RecordHeaders(headers.toArray());
    DeadLetter meta = HeaderValues.last(copy, HeaderNames.REASON).isPresent()
        ? DeadLetter.fromHeaders(copy) : null;
    Fields f = Fields.of(value);
    String eventId = meta != null && meta.eventId() != null ? meta.eventId() : f.id;
    String tenant = f.tenant != null ? f.tenant
        : key == null ? null : new String(key, StandardCharsets.UTF_8);
    return new DeadLetterEntry(DeadLetter.source(topic, partition, offset),
        Instant.ofEpochMilli(timestamp), meta, key, value, copy, eventId, tenant, f.provider,
        f.deadline, HeaderValues.last(copy, ReplayMark.HEADER).orElse(null));
  }

  /** The reason code, or {@code "-"} for a record that is not Sluice's dead letter. */
  public String reason() {
    return meta == null ? "-" : meta.reason();
  }

  /** The headers a replay carries: the producer's own, none of Sluice's (the gate strips those). */
  Headers producerHeaders() {
    RecordHeaders kept = new RecordHeaders();
    for (Header h : headers) {
      if (!HeaderNames.isSluice(h.key()) && !h.key().equalsIgnoreCase(ReplayMark.HEADER)) {
        kept.add(h);
      }
    }
    return kept;
  }

  /**
   * The top-level {@code id}, {@code tenant}, {@code provider} and {@code deadline} strings of a
   * JSON object, read with a streaming parser that skips every other value: a dead letter's value
   * may be anything a producer wrote (up to the topic's size limit), and no part of it is built
   * into a tree. An unreadable value leaves the fields it had not reached null.
   */
  private record Fields(String id, String tenant, String provider, Instant deadline) {
    static Fields of(byte[] value) {
      String id = null;
      String tenant = null;
      String provider = null;
      Instant deadline = null;
      if (value == null) {
        return new Fields(null, null, null, null);
      }
      try (JsonParser p = Json.mapper().getFactory().createParser(value)) {
        if (p.nextToken() != JsonToken.START_OBJECT) {
          return new Fields(null, null, null, null);
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          JsonToken t = p.nextToken();
          if (t != JsonToken.VALUE_STRING) {
            p.skipChildren();
            continue;
          }
          switch (name) {
            case "id" -> id = p.getText();
            case "tenant" -> tenant = p.getText();
            case "provider" -> provider = p.getText();
            case "deadline" -> deadline = instant(p.getText());
            default -> { }
          }
        }
      } catch (IOException | RuntimeException e) {
        // A malformed value: the fields read so far stand.
      }
      return new Fields(id, tenant, provider, deadline);
    }

    private static Instant instant(String text) {
      try {
        return OffsetDateTime.parse(text).toInstant();
      } catch (DateTimeParseException e) {
        return null;
      }
    }
  }
}
