package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.schemas.serde.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A field {@code sluice produce} adds to a JSON line ({@link AskedTime}, {@link AskedKey}). Pure.
 *
 * <p>A line already naming the field or one it stands for (even as null) is sent as written, and
 * so is a line that is not a JSON object: the gate judges events, and dead-letters a bad one with
 * a reason. A line that gains the field keeps its bytes: the field is written in before the
 * object's closing brace, so a payload is never parsed and written again.
 */
final class LineField {
  private LineField() {}

  /**
   * {@code line} with {@code "field":"value"} added, when it is an object naming none of
   * {@code field} and {@code others}; else {@code line} as it is. {@code value} is ASCII and
   * needs no escape (the callers check it).
   */
  static byte[] added(byte[] line, String field, String value, String... others) {
    try {
      JsonNode node = Json.mapper().readTree(line);
      if (!(node instanceof ObjectNode event) || event.has(field)) {
        return line;
      }
      for (String other : others) {
        if (event.has(other)) {
          return line;
        }
      }
      int close = line.length - 1;
      while (line[close] != '}') {
        close--; // trailing whitespace: a parsed object ends with its brace
      }
      String added = (event.isEmpty() ? "\"" : ",\"") + field + "\":\"" + value + "\"";
      byte[] out = new byte[line.length + added.length()];
      System.arraycopy(line, 0, out, 0, close);
      System.arraycopy(added.getBytes(StandardCharsets.US_ASCII), 0, out, close, added.length());
      System.arraycopy(line, close, out, close + added.length(), line.length - close);
      return out;
    } catch (IOException e) {
      return line;
    }
  }
}
