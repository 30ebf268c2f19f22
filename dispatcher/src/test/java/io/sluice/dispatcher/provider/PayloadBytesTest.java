package io.sluice.dispatcher.provider;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PayloadBytesTest {
  private static String payloadOf(String json) {
    return new String(PayloadBytes.of(json.getBytes(UTF_8)), UTF_8);
  }

  @Test
  @DisplayName("the payload is cut out byte for byte: spacing, number forms and escapes survive")
  void exactBytes() {
    String payload = "{ \"amount\" : 1.10, \"big\": 12345678901234567890.123,"
        + " \"s\": \"caf\\u00e9 \\\"q\\\"\", \"a\": [1, {\"b\": null}] }";
    String event = "{\"id\":\"e1\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":" + payload
        + ",\"cost\":2}";
    assertEquals(payload, payloadOf(event));
  }

  @Test
  @DisplayName("scalar payloads and non-ASCII text are cut exactly too")
  void scalarsAndUnicode() {
    assertEquals("\"héllo ✓\"", payloadOf("{\"payload\":\"héllo ✓\",\"id\":\"x\"}"));
    assertEquals("42", payloadOf("{\"id\":\"x\",\"payload\":42}"));
    assertEquals("true", payloadOf("{\"payload\":true}"));
  }

  @Test
  @DisplayName("a nested field called payload is not the payload")
  void onlyTopLevel() {
    assertEquals("{\"payload\":1}",
        payloadOf("{\"attributes\":{\"payload\":\"no\"},\"payload\":{\"payload\":1}}"));
  }

  @Test
  @DisplayName("no payload, or null, is an empty body")
  void absent() {
    assertArrayEquals(new byte[0], PayloadBytes.of("{\"id\":\"x\"}".getBytes(UTF_8)));
    assertArrayEquals(new byte[0], PayloadBytes.of("{\"payload\":null}".getBytes(UTF_8)));
  }

  @Test
  @DisplayName("bytes that are not a JSON object are refused")
  void notAnObject() {
    assertThrows(IllegalArgumentException.class, () -> PayloadBytes.of("[1]".getBytes(UTF_8)));
    assertThrows(IllegalArgumentException.class, () -> PayloadBytes.of("{".getBytes(UTF_8)));
  }
}
