package io.sluice.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What {@code sluice produce --ordering-key} adds to a line, and what it leaves alone. */
class AskedKeyTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void shouldAddTheKeyToALineNamingNoneAndLeaveTheRestAsWritten() {
    AskedKey key = AskedKey.of("order:42");
    assertEquals("{\"id\":\"e1\",\"payload\":{\"n\":1.50},\"orderingKey\":\"order:42\"}",
        new String(key.applyTo(bytes("{\"id\":\"e1\",\"payload\":{\"n\":1.50}}")), StandardCharsets.UTF_8));
    for (String line : new String[] {"{\"id\":\"e1\",\"orderingKey\":\"own\"}", "{\"orderingKey\":null}", "not json"}) {
      assertArrayEquals(bytes(line), key.applyTo(bytes(line)), line);
    }
    assertArrayEquals(bytes("{\"id\":\"e1\"}"), AskedKey.NONE.applyTo(bytes("{\"id\":\"e1\"}")));
    String both = new String(key.applyTo(AskedTime.of(null, "10m").applyTo(bytes("{\"id\":\"e1\"}"))),
        StandardCharsets.UTF_8);
    assertEquals("{\"id\":\"e1\",\"delay\":\"10m\",\"orderingKey\":\"order:42\"}", both);
  }

  @Test
  void shouldRefuseAKeyTheGateWouldRefuseNamingTheOption() {
    assertEquals("--ordering-key: expected 1 to 128 of A-Z a-z 0-9 . _ : / -, got \"order 42\"",
        assertThrows(IllegalArgumentException.class, () -> AskedKey.of("order 42")).getMessage());
    assertThrows(IllegalArgumentException.class, () -> AskedKey.of(""));
    assertThrows(IllegalArgumentException.class, () -> AskedKey.of("k".repeat(129)));
  }
}
