package io.sluice.dispatcher.dispatch.intake;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.topic.HeaderNames;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ReadyRecordCheckTest {
  private static final String YAML = """
      kafka: { bootstrap: "localhost:9092" }
      redis: { uri: "redis://localhost:6379" }
      tiers: { std: { weight: 1 }, gold: { weight: 4 } }
      defaultTier: std
      providers:
        api:
          url: http://localhost:1/
          rate: 10/s
          maxCost: 5
          quotas: { std: { capacity: 10, refill: 1/s }, gold: { capacity: 10, refill: 1/s } }
      """;
  /** Also the configuration of {@link RecordIntakeTest}. */
  static final SluiceConfig CONFIG = ConfigLoader.parse(YAML, Map.of());
  private final ReadyRecordCheck check = new ReadyRecordCheck(CONFIG);

  private static byte[] json(String s) {
    return s.getBytes(UTF_8);
  }

  private static Headers headers(String... nameValue) {
    Headers h = new RecordHeaders();
    for (int i = 0; i < nameValue.length; i += 2) {
      h.add(nameValue[i], nameValue[i + 1] == null ? null : nameValue[i + 1].getBytes(UTF_8));
    }
    return h;
  }

  private ReadyRecordCheck.Reject rejected(byte[] value, Headers headers) {
    return assertInstanceOf(ReadyRecordCheck.Reject.class, check.check(value, headers));
  }

  @Test
  @DisplayName("a well-formed event is dispatched with its tier, attempts and first-seen")
  void wellFormed() {
    ReadyRecordCheck.Dispatch d = assertInstanceOf(ReadyRecordCheck.Dispatch.class, check.check(
        json("{\"id\":\"e1\",\"tenant\":\"t\",\"provider\":\"api\",\"cost\":2}"),
        headers(HeaderNames.TIER, "gold", HeaderNames.ATTEMPT, "3", HeaderNames.FIRST_SEEN, "77")));
    assertEquals("e1", d.event().id());
    assertEquals("gold", d.tier());
    assertEquals(3, d.attempts());
    assertEquals(77L, d.firstSeen());
    ReadyRecordCheck.Dispatch plain = assertInstanceOf(ReadyRecordCheck.Dispatch.class,
        check.check(json("{\"id\":\"e2\",\"tenant\":\"t\",\"provider\":\"api\"}"), headers()));
    assertEquals("std", plain.tier(), "no tier header: the configured default");
    assertEquals(0, plain.attempts());
  }

  @Test
  @DisplayName("every kind of malformed record is rejected with a reason and a detail naming it")
  void malformed() {
    Map<String, byte[]> invalid = Map.of(
        "empty value", new byte[0],
        "not JSON", json("not json"),
        "array", json("[1,2]"),
        "no tenant", json("{\"id\":\"e\",\"provider\":\"api\"}"),
        "cost 0", json("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"api\",\"cost\":0}"),
        "cost -3", json("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"api\",\"cost\":-3}"),
        "no id", json("{\"tenant\":\"t\",\"provider\":\"api\"}"));
    invalid.forEach((what, value) -> {
      ReadyRecordCheck.Reject r = rejected(value, headers());
      assertEquals(Reason.INVALID, r.reason(), what);
      assertTrue(!r.detail().isBlank(), what);
    });
    assertEquals(Reason.INVALID, rejected(null, headers()).reason());
    assertTrue(rejected(null, headers()).detail().contains("null"));
    assertTrue(rejected(json("{\"id\":\"e\",\"provider\":\"api\"}"), headers()).detail()
        .contains("tenant"));
    assertTrue(rejected(json("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"api\",\"cost\":0}"),
        headers()).detail().contains("cost"));
    assertEquals(Reason.UNKNOWN_PROVIDER,
        rejected(json("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"nope\"}"), headers()).reason());
  }

  @Test
  @DisplayName("an event the gate admitted under a larger maxCost is dispatched after a reload lowered it: it was paid for")
  void admittedBeforeMaxCostWasLowered() {
    byte[] dear = json("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"api\",\"cost\":5}");
    assertInstanceOf(ReadyRecordCheck.Dispatch.class, check.check(dear, headers()), "at maxCost 5");
    ReadyRecordCheck reloaded = new ReadyRecordCheck(ConfigLoader.parse(
        YAML.replace("maxCost: 5", "maxCost: 2"), Map.of()));
    ReadyRecordCheck.Dispatch d = assertInstanceOf(ReadyRecordCheck.Dispatch.class,
        reloaded.check(dear, headers()), "maxCost is the gate's admission rule, judged once");
    assertEquals(5, d.event().cost());
  }

  @Test
  @DisplayName("an event dearer than its provider's smallest configured cost window is dead-lettered "
      + "here, before any leak slot: no window could ever hold it")
  void costAboveEveryWindow() {
    ReadyRecordCheck windowed = new ReadyRecordCheck(ConfigLoader.parse(YAML
        .replace("rate: 10/s", "limits: [{rate: 10/s}, {cost: 4, per: 1s}]")
        .replace("maxCost: 5", "maxCost: 10"), Map.of()));
    ReadyRecordCheck.Reject r = assertInstanceOf(ReadyRecordCheck.Reject.class, windowed.check(
        json("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"api\",\"cost\":5}"), headers()));
    assertEquals(Reason.INVALID, r.reason());
    assertTrue(r.detail().contains("cost limit 4"), r.detail());
    assertInstanceOf(ReadyRecordCheck.Dispatch.class, windowed.check(
        json("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"api\",\"cost\":4}"), headers()),
        "as dear as the window: sendable");
  }

  @Test
  @DisplayName("a negative, garbled or null attempt header is rejected: it would never reach maxAttempts")
  void badAttemptHeader() {
    byte[] good = json("{\"id\":\"e\",\"tenant\":\"t\",\"provider\":\"api\"}");
    for (String attempt : new String[] {"-1", "abc", "99999999999", ""}) {
      ReadyRecordCheck.Reject r = rejected(good, headers(HeaderNames.ATTEMPT, attempt));
      assertEquals(Reason.INVALID, r.reason(), attempt);
      assertTrue(r.detail().contains(HeaderNames.ATTEMPT), r.detail());
    }
  }
}
