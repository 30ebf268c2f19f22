package io.sluice.dispatcher.pause;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.pause.PausesScript.PutArg;
import io.sluice.dispatcher.pause.PausesScript.RestoreArg;
import io.sluice.testkit.ScriptHeader;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link PausesScript}'s names and positions are the ones {@code pauses.lua}'s header states in
 * prose ({@code put: ARGV[2] field, ARGV[3] json, ...}): each argument is written at its position
 * in words the codec carries, and each mode is one the header names.
 */
class PausesScriptHeaderTest {
  private static final ScriptHeader HEADER = ScriptHeader.of(PausesScript.load().text());

  @Test
  @DisplayName("the modes are the header's: put, remove, list, restore and marker, in ARGV[1]")
  void modes() {
    for (PausesScript.Mode mode : PausesScript.Mode.values()) {
      assertTrue(HEADER.writes(mode.arg() + ":"), "the header has no mode " + mode.arg());
    }
  }

  @Test
  @DisplayName("a put is ARGV[2] field, ARGV[3] json, ARGV[4] the most pauses the hash may hold")
  void put() {
    for (PutArg arg : PutArg.values()) {
      String written = "ARGV[" + (arg.ordinal() + 1) + "] " + arg.written;
      assertTrue(HEADER.writes(written), "the header does not write " + written);
    }
  }

  @Test
  @DisplayName("a restore is ARGV[2] the marker's field, ARGV[3] the marker's value, then pairs")
  void restore() {
    for (RestoreArg arg : RestoreArg.values()) {
      if (arg != RestoreArg.MODE) {
        String written = "ARGV[" + (arg.ordinal() + 1) + "] " + arg.written;
        assertTrue(HEADER.writes(written), "the header does not write " + written);
      }
    }
  }

  @Test
  @DisplayName("a put answers {1, atMillis} when written, {0, count} when refused")
  void putAnswer() {
    assertTrue(HEADER.writes("Returns {1, atMillis} when written, {0, count} when refused"));
  }
}
