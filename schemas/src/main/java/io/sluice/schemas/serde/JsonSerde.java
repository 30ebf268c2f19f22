package io.sluice.schemas.serde;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.IOException;
import java.util.Objects;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A Kafka {@link Serde} for one JSON type on the shared {@link Json} configuration.
 *
 * <p>This is data binding only: it does not validate. Bytes that are JSON but break the
 * contract (a missing id, a cost of 0) bind without complaint; deciding what is a valid
 * WorkEvent is {@link io.sluice.schemas.validation.EventValidator}'s job, which the gate runs on
 * raw bytes so that bad input becomes a dead letter instead of a deserialization failure that
 * stops the stream. A null value (a tombstone) maps to null both ways.
 *
 * @param <T> the bound type
 */
public final class JsonSerde<T> implements Serde<T> {
  private final Class<T> type;
  private final ObjectReader reader;
  private final ObjectWriter writer;

  public JsonSerde(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
    this.reader = Json.reader().forType(type);
    this.writer = Json.writer().forType(type);
  }

  public static <T> JsonSerde<T> of(Class<T> type) {
    return new JsonSerde<>(type);
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> value == null ? null : write(value);
  }

  @Override
  public Deserializer<T> deserializer() {
    return (topic, bytes) -> bytes == null ? null : read(topic, bytes);
  }

  private byte[] write(T value) {
    try {
      return writer.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new SerializationException(
          "cannot write " + type.getSimpleName() + " as JSON: " + e.getOriginalMessage(), e);
    }
  }

  private T read(String topic, byte[] bytes) {
    try {
      return reader.readValue(bytes);
    } catch (JacksonException e) {
      throw new SerializationException("cannot read a " + type.getSimpleName() + " from "
          + bytes.length + " bytes" + (topic == null ? "" : " on topic " + topic) + ": "
          + e.getOriginalMessage() + at(e.getLocation()), e);
    } catch (IOException e) {
      throw new SerializationException("cannot read a " + type.getSimpleName() + ": " + e, e);
    }
  }

  /** Jackson's own message would name a redacted source; line and column are what helps. */
  private static String at(JsonLocation location) {
    if (location == null || location.getLineNr() < 0) {
      return "";
    }
    return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
  }
}
