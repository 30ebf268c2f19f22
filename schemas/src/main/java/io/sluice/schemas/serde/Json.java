package io.sluice.schemas.serde;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The one JSON configuration of Sluice, shared by every serde, validator and tool.
 *
 * <p>Why one: an {@link ObjectMapper} is expensive to build and caches per-type serializers, and
 * two differently configured mappers would let the gate and the dispatcher disagree about the
 * same bytes. The settings are the contract's:
 * <ul>
 *   <li>{@code java.time} types as ISO-8601 text ({@code "2030-01-01T00:00:00Z"}), never as
 *       numbers, because that is what the schemas say and what producers in other languages
 *       write;</li>
 *   <li>unknown properties are ignored, because producers may add fields of their own and a
 *       newer Sluice may add fields an older one does not know.</li>
 * </ul>
 * The mapper is configured once, here. Callers must not reconfigure it; prefer the immutable
 * {@link #reader()} and {@link #writer()}, and derive variants with {@code reader().with(..)}.
 */
public final class Json {
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .addModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .build();

  private Json() {}

  /** The shared mapper. Thread-safe for reading and writing; never reconfigure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** An immutable reader on the shared configuration. */
  public static ObjectReader reader() {
    return MAPPER.reader();
  }

  /** An immutable writer on the shared configuration. */
  public static ObjectWriter writer() {
    return MAPPER.writer();
  }
}
