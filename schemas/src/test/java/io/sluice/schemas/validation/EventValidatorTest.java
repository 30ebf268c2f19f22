package io.sluice.schemas.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.NullNode;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.serde.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventValidatorTest {
  private final EventValidator validator = new EventValidator();

  @Test
  void shouldBindEveryFieldOfAValidEvent() throws Exception {
    WorkEvent event = valid("""
        {"id": "evt-1", "tenant": "acme", "provider": "payments-api", "cost": 3,
         "deadline": "2030-01-01T01:00:00.5+01:00", "path": "orders/42",
         "payload": {"amount": 1250}, "attributes": {"X-Request-Id": "req-7"}}""");

    assertEquals("evt-1", event.id());
    assertEquals("acme", event.tenant());
    assertEquals("payments-api", event.provider());
    assertEquals(3, event.cost());
    assertEquals(Instant.parse("2030-01-01T00:00:00.5Z"), event.deadline());
    assertEquals("orders/42", event.path());
    assertEquals(Json.mapper().readTree("{\"amount\": 1250}"), event.payload());
    assertEquals(Map.of("X-Request-Id", "req-7"), event.attributes());
  }

  @Test
  void shouldRefuseJsonThatIsNotPlainUtf8EvenWhenJacksonCouldReadIt() {
    String json = "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\"}";
    byte[] bom = {(byte) 0xef, (byte) 0xbb, (byte) 0xbf};
    byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
    byte[] withBom = new byte[bom.length + utf8.length];
    System.arraycopy(bom, 0, withBom, 0, bom.length);
    System.arraycopy(utf8, 0, withBom, bom.length, utf8.length);

    assertInstanceOf(ValidationResult.Valid.class, validator.validate(utf8));
    for (byte[] value : new byte[][] {withBom, json.getBytes(StandardCharsets.UTF_16LE),
        json.getBytes(StandardCharsets.UTF_16BE), json.getBytes(StandardCharsets.UTF_16),
        json.getBytes(java.nio.charset.Charset.forName("UTF-32"))}) {
      ValidationResult result = validator.validate(value);
      ValidationResult.Invalid invalid = assertInstanceOf(ValidationResult.Invalid.class, result);
      assertTrue(invalid.detail().contains("UTF-8"), invalid.detail());
    }
  }

  @Test
  void shouldDefaultCostToOneWhenItIsAbsentOrNull() {
    assertEquals(1, valid("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\"}").cost());
    assertEquals(1, valid("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":null}").cost());
  }

  @Test
  void shouldTreatExplicitNullsInOptionalFieldsAsAbsent() {
    WorkEvent event = valid("""
        {"id":"e","tenant":"t","provider":"p","deadline":null,"path":null,"attributes":null,
         "payload":null}""");

    assertNull(event.deadline());
    assertNull(event.path());
    assertEquals(Map.of(), event.attributes());
    assertEquals(NullNode.getInstance(), event.payload(), "a JSON null payload is still a payload");
  }

  @Test
  void shouldAcceptAnIntegralFloatCostAsThatIntegerLikeJsonSchemaDoes() {
    assertEquals(2, valid("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":2.0}").cost());
  }

  @Test
  void shouldIgnoreFieldsItDoesNotKnow() {
    WorkEvent event = valid(
        "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"tier\":\"enterprise\",\"x\":[1]}");

    assertEquals("t", event.tenant());
  }

  @Test
  void shouldRejectATenantWithASpaceNamingTheFieldAndItsPattern() {
    assertEquals("field 'tenant' must match [A-Za-z0-9._:-]{1,128}, got \"a b\"",
        invalid("{\"id\":\"e\",\"tenant\":\"a b\",\"provider\":\"p\"}"));
  }

  @Test
  void shouldRejectANullValueBecauseATombstoneIsNoEvent() {
    ValidationResult.Invalid result =
        assertInstanceOf(ValidationResult.Invalid.class, validator.validate(null));

    assertEquals(Reason.INVALID, result.reason());
    assertTrue(result.detail().startsWith("value is empty"), result.detail());
  }

  @Test
  void shouldRejectBytesThatAreNotJsonSayingWhereTheyBreak() {
    String detail = invalid("{\"id\": \"e\", ");

    assertTrue(detail.startsWith("value is not valid JSON: "), detail);
    assertTrue(detail.contains("line 1"), detail);
  }

  @Test
  void shouldRejectAJsonValueThatIsNotAnObject() {
    assertEquals("value must be a JSON object, got an array", invalid("[1, 2]"));
    assertEquals("value must be a JSON object, got a number 42", invalid("42"));
  }

  @Test
  void shouldRejectDuplicateKeysBecauseParsersDisagreeOnWhichOneWins() {
    String detail = invalid("{\"id\":\"e\",\"tenant\":\"a\",\"tenant\":\"b\",\"provider\":\"p\"}");

    assertTrue(detail.contains("Duplicate field 'tenant'"), detail);
  }

  @Test
  void shouldReportTheFirstBrokenFieldInContractOrder() {
    assertEquals("field 'id' is required", invalid("{\"tenant\":\"a b\",\"cost\":0}"));
  }

  @Test
  void shouldRejectCostZeroNegativeFractionalAndTextual() {
    for (String cost : new String[] {"0", "-1", "1.5", "\"3\"", "true", "2147483648"}) {
      String detail = invalid("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":" + cost + "}");
      assertTrue(detail.startsWith("field 'cost' must be a whole number from 1 to 2147483647"),
          detail);
    }
  }

  @Test
  void shouldCountLengthsInCodePointsSoAnEmojiIsOneCharacter() {
    String emoji = "😀".repeat(128);

    assertEquals(emoji, valid("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"" + emoji + "\"}").provider());
    assertEquals("field 'id' must be 1 to 128 characters long, got 129",
        invalid("{\"id\":\"" + emoji + "😀\",\"tenant\":\"t\",\"provider\":\"p\"}"));
  }

  /** The id is sent as the Idempotency-Key header: it must be a value HTTP can carry unchanged. */
  @Test
  void shouldRefuseAnIdThatCannotBeSentAsAnIdempotencyKeyHeader() {
    for (String id : new String[] {"😀", "заказ-42", "café", "a\r\nX-Injected: 1", "a\n", "a\u0000",
        "a\t1", "a\u007f"}) {
      String detail = invalid("{\"id\":" + quote(id) + ",\"tenant\":\"t\",\"provider\":\"p\"}");
      assertTrue(detail.startsWith("field 'id' must be printable ASCII (it is sent as the Idempotency-Key"),
          detail);
    }
    for (String id : new String[] {" a", "a ", " "}) {
      String detail = invalid("{\"id\":" + quote(id) + ",\"tenant\":\"t\",\"provider\":\"p\"}");
      assertTrue(detail.startsWith("field 'id' must not start or end with a space"), detail);
    }
    assertEquals("a b ~!", valid("{\"id\":\"a b ~!\",\"tenant\":\"t\",\"provider\":\"p\"}").id());
  }

  @Test
  void shouldRefuseAnAttributeThatCannotBeSentAsAHeaderNamingIt() {
    assertEquals("field 'attributes' values must be printable ASCII, space or tab (they are sent as "
            + "request headers; no CR/LF, control characters or non-ASCII), but attribute "
            + "\"X-Request-Id\" is \"r\\r\\nX-Injected: 1\"",
        invalid("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":"
            + "{\"X-Request-Id\":\"r\\r\\nX-Injected: 1\"}}"));
    for (String name : new String[] {"", "X A", "X-A:b", "X-(a)", "Zähler", "a\r\nb"}) {
      String detail = invalid("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":{"
          + quote(name) + ":\"v\"}}");
      assertTrue(detail.startsWith("field 'attributes' names must be HTTP header names"), detail);
    }
  }

  @Test
  void shouldNeverLetAPathChooseAHost() {
    for (String path : new String[] {"https://evil.example/x", "//evil.example/x", "../admin",
        "a/%2e%2e/admin", "user@evil.example", "\\\\evil.example", "a b", "a#b#c", "./a", "a/./b",
        "a/..;/admin", "a/%2e/b", "a\r\nHost: evil"}) {
      String detail = invalid("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"path\":"
          + quote(path) + "}");
      assertTrue(detail.startsWith("field 'path' "), detail);
    }
  }

  @Test
  void shouldRejectAnAttributeWithANonStringValueNamingTheAttribute() {
    assertEquals("field 'attributes' must be an object of string values, but attribute "
            + "\"X-Retries\" is a number 3",
        invalid("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":{\"X-Retries\":3}}"));
  }

  @Test
  void shouldShowInvisibleCharactersAndShortenHugeValuesInDetails() {
    assertEquals("field 'tenant' must match [A-Za-z0-9._:-]{1,128}, got \"acme\\n\"",
        invalid("{\"id\":\"e\",\"tenant\":\"acme\\n\",\"provider\":\"p\"}"));

    String detail = invalid("{\"id\":\"e\",\"tenant\":\"" + "x ".repeat(50_000) + "\",\"provider\":\"p\"}");
    assertTrue(detail.length() < 200, detail);
    assertTrue(detail.endsWith("… (100000 characters)"), detail);
  }

  private WorkEvent valid(String json) {
    ValidationResult result = validator.validate(json.getBytes(StandardCharsets.UTF_8));
    return assertInstanceOf(ValidationResult.Valid.class, result, result::toString).event();
  }

  private String invalid(String json) {
    ValidationResult result = validator.validate(json.getBytes(StandardCharsets.UTF_8));
    ValidationResult.Invalid invalid =
        assertInstanceOf(ValidationResult.Invalid.class, result, result::toString);
    assertEquals(Reason.INVALID, invalid.reason());
    return invalid.detail();
  }

  private static String quote(String text) {
    try {
      return Json.mapper().writeValueAsString(text);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
