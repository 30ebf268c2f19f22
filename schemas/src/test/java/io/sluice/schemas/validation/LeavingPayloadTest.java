package io.sluice.schemas.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.schemas.event.WorkEvent;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The streaming reading ({@link EventValidator#validateLeavingPayload}) gives every value the
 * tree reading's verdict and detail, and the same event but for the payload, which it leaves as
 * bytes. The corpus and the edge cases of {@link EventValidatorAgreementTest} go through both
 * readings too; these are the values where the two parse differently.
 */
class LeavingPayloadTest {
  private final EventValidator validator = new EventValidator();

  @ParameterizedTest
  @ValueSource(strings = {
      // the payload skipped by the tokenizer is still checked by it
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":{\"a\":1,\"a\":2}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":{\"a\":[1,2,}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":\"\\x\"}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":[1.5e3, true, null, {\"b\":[]}]}",
      "{\"payload\":{\"x\":{\"y\":[]}},\"provider\":\"p\",\"tenant\":\"t\",\"id\":\"e\"}",
      // duplicate names found by the streaming reading itself, at any depth, in any size of object
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":[{\"a\":1},{\"b\":[{\"c\":1,\"c\":2}]}]}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":{\"a\":{\"a\":{\"a\":1}},\"b\":[{\"a\":1},{\"a\":2}]}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":{\"k1\":1,\"k2\":1,\"k3\":1,\"k4\":1,\"k5\":1,"
          + "\"k6\":1,\"k7\":1,\"k8\":1,\"k9\":1,\"k10\":1,\"k3\":2}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"x1\":1,\"x2\":1,\"x3\":1,\"x4\":1,\"x5\":1,\"x6\":1,\"x1\":1}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":1,\"payload\":2}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"extra\":{\"id\":5},\"more\":[{\"cost\":0}]}",
      // the whole value is one object
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\"}garbage",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\"}{}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\"}  \n",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\"",
      "[{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\"}]",
      "   ", "null", "\"text\"",
      // rule fields of every kind, duplicated, or nested
      "{\"id\":\"e\",\"id\":\"f\",\"tenant\":\"t\",\"provider\":\"p\"}",
      "{\"id\":7,\"tenant\":\"t\",\"provider\":\"p\"}",
      "{\"id\":\"e\",\"tenant\":[\"t\"],\"provider\":\"p\"}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":{\"p\":1}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":3000000000}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":2.0}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":true}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":-3}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"deadline\":null,\"path\":null,\"attributes\":null}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":{}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":{\"X-A\":\"1\",\"X-B\":\"2\"}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":{\"X-A\":\"1\",\"X-A\":\"2\"}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":{\"X-A\":1}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":{\"X-A\":{\"b\":\"c\"}}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"attributes\":[\"X-A\"]}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"deadline\":\"2030-01-01T00:00:00Z\",\"path\":\"a/b\"}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"deadline\":\"tomorrow\"}",
      "{\"id\":\"e\",\"tenant\":\"t b\",\"provider\":\"p\",\"payload\":{\"big\":\"" + "\\u00e9" + "\"}}"})
  void shouldGiveTheTreeReadingsVerdictAndDetail(String json) {
    byte[] value = json.getBytes(StandardCharsets.UTF_8);

    assertSameVerdict(validator, value, validator.validate(value));
  }

  @Test
  void shouldGiveTheTreeReadingsVerdictOnAPayloadBeyondTheParsersLimits() {
    String head = "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":";
    for (String payload : new String[] {
        "[".repeat(2000) + "1" + "]".repeat(2000), "{\"a\":".repeat(2000) + "1" + "}".repeat(2000),
        "1" + "0".repeat(1200), "\"" + "x".repeat(100_000) + "\""}) {
      byte[] value = (head + payload + "}").getBytes(StandardCharsets.UTF_8);

      assertSameVerdict(validator, value, validator.validate(value));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "{\"id\":\"e1\",\"tenant\":\"tenant-1\",\"provider\":\"bench-api\",\"payload\":{\"order\":1,\"amount\":1999}}",
      "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"cost\":3,\"deadline\":\"2030-01-01T00:00:00Z\","
          + "\"path\":\"a/b\",\"attributes\":{\"X-A\":\"1\"},\"payload\":[1,{\"b\":null}],\"other\":{}}"})
  void shouldReadATypicalEventItselfWithoutFallingBackToTheTree(String json) {
    assertNotNull(EventValidator.streamed(json.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void shouldHandOverAValueWithADuplicateNameAnywhereAndKeepOneThatMerelyRepeatsANameElsewhere() {
    String head = "{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"p\",\"payload\":";
    assertNull(EventValidator.streamed((head + "{\"o\":[{\"a\":1,\"b\":2,\"a\":3}]}}").getBytes(StandardCharsets.UTF_8)));
    assertNull(EventValidator.streamed((head + "{}, \"tenant\":\"u\"}").getBytes(StandardCharsets.UTF_8)));
    assertNotNull(EventValidator.streamed(
        (head + "{\"id\":1,\"o\":{\"id\":2},\"a\":[{\"id\":3},{\"id\":4}]}}").getBytes(StandardCharsets.UTF_8)),
        "the same name in different objects is no duplicate");
  }

  @Test
  void namesCountAsDuplicatesOnlyWithinOneObjectWhateverItsSize() {
    EventValidator.Names names = new EventValidator.Names();
    for (int i = 0; i < 3 * EventValidator.Names.FEW; i++) {
      assertTrue(names.add("n" + i), "n" + i);
      assertFalse(names.add("n" + (i / 2)), "n" + (i / 2) + " again, after " + (i + 1) + " names");
    }
  }

  /** Both readings agree on {@code value}, given the tree reading's {@code tree} verdict. */
  static void assertSameVerdict(EventValidator validator, byte[] value, ValidationResult tree) {
    ValidationResult streamed = validator.validateLeavingPayload(value);
    String shown = value == null ? "null" : new String(value, StandardCharsets.UTF_8);
    if (tree instanceof ValidationResult.Valid valid) {
      WorkEvent event = assertInstanceOf(ValidationResult.Valid.class, streamed, shown).event();
      assertNull(event.payload(), shown);
      WorkEvent e = valid.event();
      assertEquals(new WorkEvent(e.id(), e.tenant(), e.provider(), e.cost(), e.deadline(), e.path(), null,
          e.attributes(), e.deliverAt(), e.delay(), e.orderingKey(), e.priority()), event, shown);
    } else {
      assertEquals(tree, streamed, shown);
    }
  }
}
