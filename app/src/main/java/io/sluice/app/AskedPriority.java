package io.sluice.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.schemas.event.Priority;
import io.sluice.schemas.serde.Json;
import java.io.IOException;

/**
 * The class {@code sluice produce --priority} asks for, added to each line that names none, as
 * {@link AskedTime} adds a time: a line naming {@code priority} (even as null) and a line that is
 * not a JSON object are sent as written, and a line that gains the field keeps its bytes. Pure.
 *
 * @param priority the class asked for; null: nothing asked
 */
public record AskedPriority(Priority priority) {
  public static final AskedPriority NONE = new AskedPriority(null);

  /**
   * From the command's option (null: none).
   *
   * @throws IllegalArgumentException naming the option, when it names no class
   */
  public static AskedPriority of(String option) {
    if (option == null) {
      return NONE;
    }
    return new AskedPriority(Priority.of(option).orElseThrow(() -> new IllegalArgumentException(
        "--priority: expected one of " + Priority.names() + ", got \"" + option + "\"")));
  }

  /** The line with the field added, when it is an object naming no class; else the line as it is. */
  public byte[] applyTo(byte[] line) {
    if (priority == null) {
      return line;
    }
    try {
      JsonNode node = Json.mapper().readTree(line);
      if (!(node instanceof ObjectNode event) || event.has("priority")) {
        return line;
      }
      return AskedTime.withField(line, event, "priority", priority.wire());
    } catch (IOException e) {
      return line;
    }
  }
}
