package io.sluice.schemas.topic;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Reads and writes Sluice's header values (UTF-8 text, numbers in decimal).
 *
 * <p>A record may pass through Sluice several times (deferred, retried, dead-lettered), and Kafka
 * headers are a list, not a map. So readers take the <em>last</em> value of a name, and writers
 * remove every earlier value before adding theirs: a record never carries two conflicting
 * {@code sluice-attempt} values however often it loops.
 */
public final class HeaderValues {
  private HeaderValues() {}

  /** The last value of {@code name} as UTF-8 text; empty when absent or when its value is null. */
  public static Optional<String> last(Headers headers, String name) {
    Header header = headers.lastHeader(name);
    if (header == null || header.value() == null) {
      return Optional.empty();
    }
    return Optional.of(new String(header.value(), StandardCharsets.UTF_8));
  }

  /**
   * The last value of {@code name} as a decimal long. Empty when absent, and also when it is not a
   * number: a garbled header must not make a record unreadable, and every caller has a sensible
   * fallback (e.g. attempt 0, first seen now).
   */
  public static Optional<Long> lastLong(Headers headers, String name) {
    return last(headers, name).flatMap(HeaderValues::parseLong);
  }

  /** Replaces every value of {@code name} with one UTF-8 value. */
  public static void put(Headers headers, String name, String value) {
    headers.remove(name);
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }

  /** Replaces every value of {@code name} with one decimal value. */
  public static void put(Headers headers, String name, long value) {
    put(headers, name, Long.toString(value));
  }

  private static Optional<Long> parseLong(String text) {
    try {
      return Optional.of(Long.parseLong(text.trim()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
