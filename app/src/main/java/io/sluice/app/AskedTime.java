package io.sluice.app;

import io.sluice.config.DelayText;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The time {@code sluice produce --deliver-at} or {@code --delay} asks for, added to each line
 * that asks for none. Pure.
 *
 * <p>A line naming {@code deliverAt} or {@code delay} (even as null) is sent as written (a file
 * of events with their own times stays theirs; adding a second would make a duplicate name, which
 * the gate refuses), and so is a line that is not a JSON object ({@link LineField}).
 *
 * @param field {@code deliverAt} or {@code delay}; null: nothing asked
 * @param value its text, as the event contract writes it
 */
public record AskedTime(String field, String value) {
  public static final AskedTime NONE = new AskedTime(null, null);

  /**
   * From the command's options (either may be null).
   *
   * @throws IllegalArgumentException naming the option, when both are given or one is malformed
   */
  public static AskedTime of(String deliverAt, String delay) {
    if (deliverAt != null && delay != null) {
      throw new IllegalArgumentException("--deliver-at and --delay: give one (an instant or a wait)");
    }
    if (deliverAt != null) {
      try {
        return new AskedTime("deliverAt", Instant.parse(deliverAt).toString());
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException("--deliver-at: expected an instant like 2030-01-01T00:00:00Z, got \""
            + deliverAt + "\"");
      }
    }
    if (delay != null) {
      if (DelayText.parse(delay) == null) {
        throw new IllegalArgumentException("--delay: expected a wait like 90s, 10m, 2h or 1d (one to "
            + DelayText.MAX_DIGITS + " digits), got \"" + delay + "\"");
      }
      return new AskedTime("delay", delay);
    }
    return NONE;
  }

  /** The line with the field added, when it is an object asking for no time; else the line as it is. */
  public byte[] applyTo(byte[] line) {
    if (field == null) {
      return line;
    }
    return LineField.added(line, field, value, "deliverAt", "delay");
  }

}
