package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What {@code sluice produce --deliver-at/--delay} adds to a line, and what it leaves alone. */
class AskedTimeTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void shouldAddTheTimeToAnEventAskingForNone() {
    AskedTime delay = AskedTime.of(null, "10m");
    assertEquals("{\"id\":\"e1\",\"tenant\":\"acme\",\"provider\":\"hooks\",\"payload\":{\"n\":1.50},\"delay\":\"10m\"}",
        text(delay.applyTo(bytes("{\"id\":\"e1\",\"tenant\":\"acme\",\"provider\":\"hooks\",\"payload\":{\"n\":1.50}}"))));
    AskedTime at = AskedTime.of("2030-01-01T09:00:00+01:00".replace("+01:00", "Z"), null);
    assertEquals("{\"id\":\"e1\",\"deliverAt\":\"2030-01-01T09:00:00Z\"}", text(at.applyTo(bytes("{\"id\":\"e1\"}"))));
    assertEquals("{ \"id\": \"e1\" ,\"delay\":\"10m\"}  ", text(delay.applyTo(bytes("{ \"id\": \"e1\" }  "))));
    assertEquals("{\"delay\":\"10m\"}", text(delay.applyTo(bytes("{}"))), "the gate dead-letters it, not produce");
  }

  @Test
  void shouldLeaveALinesOwnTimeAndANonEventAsWritten() {
    AskedTime delay = AskedTime.of(null, "10m");
    for (String line : new String[] {"{\"id\":\"e1\",\"delay\":\"1h\"}", "{\"id\":\"e1\",\"delay\":null}", "{\"id\":\"e1\",\"deliverAt\":\"2030-01-01T00:00:00Z\"}",
        "not json", "[1,2]", "{\"id\":"}) {
      assertArrayEquals(bytes(line), delay.applyTo(bytes(line)), line);
    }
    String line = "{\"id\":\"e1\",  \"payload\":{\"n\":1.50}}";
    assertArrayEquals(bytes(line), AskedTime.NONE.applyTo(bytes(line)), "no option: the bytes as written");
  }

  @Test
  void shouldRefuseBothOptionsAndMalformedValuesNamingTheOption() {
    assertEquals("--deliver-at and --delay: give one (an instant or a wait)",
        assertThrows(IllegalArgumentException.class, () -> AskedTime.of("2030-01-01T00:00:00Z", "1m")).getMessage());
    assertEquals("--delay: expected a wait like 90s, 10m, 2h or 1d (one to 9 digits), got \"PT10M\"",
        assertThrows(IllegalArgumentException.class, () -> AskedTime.of(null, "PT10M")).getMessage());
    assertEquals("--deliver-at: expected an instant like 2030-01-01T00:00:00Z, got \"tomorrow\"",
        assertThrows(IllegalArgumentException.class, () -> AskedTime.of("tomorrow", null)).getMessage());
  }
}
