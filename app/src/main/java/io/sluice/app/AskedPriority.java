package io.sluice.app;

import io.sluice.schemas.event.Priority;

/**
 * The class {@code sluice produce --priority} asks for, added to each line that names none, as
 * {@link AskedTime} adds a time ({@link LineField}): a line naming {@code priority} (even as null) and a line that is
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
    return LineField.added(line, "priority", priority.wire());
  }
}
