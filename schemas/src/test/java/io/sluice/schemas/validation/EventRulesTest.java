package io.sluice.schemas.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventRulesTest {
  private static final SluiceConfig CONFIG = ConfigLoader.parse("""
      tiers: { free: { weight: 1 } }
      providers:
        payments-api:
          url: http://localhost:8081/hooks
          rate: 50/s
          maxCost: 128
          quotas: { free: { capacity: 200, refill: 2/s } }
        llm-api:
          url: http://localhost:8082/hooks
          limits: [{rate: 10/s}, {cost: 60, per: 1m}]
          maxCost: 100
          quotas: { free: { capacity: 200, refill: 2/s } }
      gate: { maxPayloadBytes: 300 }
      """, Map.of());

  private final EventRules rules = new EventRules(CONFIG);

  @Test
  void shouldAcceptAnEventWithinEveryConfiguredLimit() {
    ValidationResult result = rules.validate(bytes(event("payments-api", 128)));

    assertEquals(128, assertInstanceOf(ValidationResult.Valid.class, result).event().cost());
  }

  @Test
  void shouldRejectCostAboveOneHundredAndTwentyEightWhenThatIsTheProvidersMaxCost() {
    ValidationResult.Invalid invalid = assertInstanceOf(ValidationResult.Invalid.class,
        rules.validate(bytes(event("payments-api", 129))));

    assertEquals(Reason.INVALID, invalid.reason());
    assertEquals("field 'cost' is 129, more than the maxCost 128 of provider \"payments-api\"",
        invalid.detail());
  }

  @Test
  void shouldRejectACostThatNoCostWindowOfTheProviderCouldEverHold() {
    ValidationResult.Invalid invalid = assertInstanceOf(ValidationResult.Invalid.class,
        rules.validate(bytes(event("llm-api", 61))));

    assertEquals(Reason.INVALID, invalid.reason());
    assertEquals("field 'cost' is 61, more than the cost limit 60 per window of provider "
        + "\"llm-api\": it could never be sent", invalid.detail());
    assertInstanceOf(ValidationResult.Valid.class, rules.validate(bytes(event("llm-api", 60))));
  }

  @Test
  void shouldRejectAnUnconfiguredProviderWithReasonUnknownProvider() {
    ValidationResult.Invalid invalid = assertInstanceOf(ValidationResult.Invalid.class,
        rules.validate(bytes(event("sms-api", 1))));

    assertEquals(Reason.UNKNOWN_PROVIDER, invalid.reason());
    assertEquals("field 'provider' names \"sms-api\", which is not a configured provider",
        invalid.detail());
  }

  @Test
  void shouldRejectAValueLargerThanMaxPayloadBytesBeforeParsingIt() {
    byte[] notEvenJson = new byte[301];

    ValidationResult.Invalid invalid =
        assertInstanceOf(ValidationResult.Invalid.class, rules.validate(notEvenJson));

    assertEquals(Reason.INVALID, invalid.reason());
    assertEquals("payload is 301 bytes, more than the configured maxPayloadBytes 300",
        invalid.detail());
  }

  @Test
  void shouldAcceptAValueOfExactlyMaxPayloadBytes() {
    String event = event("payments-api", 1);
    String padded = event.substring(0, event.length() - 1)
        + ",\"pad\":\"" + "x".repeat(300 - event.length() - 9) + "\"}";

    assertEquals(300, bytes(padded).length);
    assertInstanceOf(ValidationResult.Valid.class, rules.validate(bytes(padded)));
  }

  @Test
  void shouldCheckAnAlreadyParsedEventAgainstTheSizeOfItsValue() {
    WorkEvent event = new WorkEvent("e", "t", "payments-api", 1, null, null, null, null);

    assertInstanceOf(ValidationResult.Valid.class, rules.check(event, 300));
    assertInstanceOf(ValidationResult.Invalid.class, rules.check(event, 301));
  }

  @Test
  void shouldPassStructuralProblemsThroughUnchanged() {
    ValidationResult.Invalid invalid =
        assertInstanceOf(ValidationResult.Invalid.class, rules.validate(bytes("[]")));

    assertEquals("value must be a JSON object, got an array", invalid.detail());
  }

  private static String event(String provider, int cost) {
    return "{\"id\":\"e\",\"tenant\":\"acme\",\"provider\":\"" + provider + "\",\"cost\":" + cost
        + "}";
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
