package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What {@code sluice produce --priority} adds to a line, and what it leaves alone. */
class AskedPriorityTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldAddTheClassToAnEventNamingNone() {
    AskedPriority high = AskedPriority.of("high");
    assertEquals("{\"id\":\"e1\",\"payload\":{\"n\":1.50},\"priority\":\"high\"}", new String(
        high.applyTo(bytes("{\"id\":\"e1\",\"payload\":{\"n\":1.50}}")), StandardCharsets.UTF_8));
  }

  @Test
  void shouldLeaveALinesOwnClassAndANonEventAsWritten() {
    AskedPriority low = AskedPriority.of("low");
    for (String line : new String[] {"{\"id\":\"e1\",\"priority\":\"high\"}",
        "{\"id\":\"e1\",\"priority\":null}", "not json", "[1,2]"}) {
      assertArrayEquals(bytes(line), low.applyTo(bytes(line)), line);
    }
    assertArrayEquals(bytes("{\"id\":\"e1\"}"), AskedPriority.NONE.applyTo(bytes("{\"id\":\"e1\"}")));
  }

  @Test
  void shouldRefuseAnUnknownClassNamingTheOption() {
    assertEquals("--priority: expected one of high, normal, low, got \"HIGH\"",
        assertThrows(IllegalArgumentException.class, () -> AskedPriority.of("HIGH")).getMessage());
  }
}
