package io.sluice.app;

import io.sluice.schemas.validation.EventValidator;
import java.util.regex.Pattern;

/**
 * The {@code orderingKey} {@code sluice produce --ordering-key} adds to each line that names none
 * (a line's own key, even null, stays; see {@link LineField}). Pure.
 *
 * @param value the key; null: nothing asked
 */
public record AskedKey(String value) {
  public static final AskedKey NONE = new AskedKey(null);
  /** The event contract's rule for a key ({@code work-event.schema.json}). */
  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9._:/-]{1," + EventValidator.MAX_ORDERING_KEY_LENGTH + "}");

  /**
   * From the command's option (may be null).
   *
   * @throws IllegalArgumentException naming the option, when the key breaks the contract's rule
   */
  public static AskedKey of(String key) {
    if (key == null) {
      return NONE;
    }
    if (!KEY.matcher(key).matches()) {
      throw new IllegalArgumentException("--ordering-key: expected 1 to " + EventValidator.MAX_ORDERING_KEY_LENGTH
          + " of A-Z a-z 0-9 . _ : / -, got \"" + key + "\"");
    }
    return new AskedKey(key);
  }

  /** The line with the key added, when it is an object naming no key; else the line as it is. */
  public byte[] applyTo(byte[] line) {
    return value == null ? line : LineField.added(line, "orderingKey", value);
  }
}
