package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A provider's {@code batch:}: off when absent, its defaults, and each mistake named by its field. */
class BatchConfigTest {
  private static final String CONFIG = """
      tiers:
        free: { weight: 1 }
      providers:
        hooks:
          url: http://localhost:8081/hooks
          rate: 10/s
          BATCH
          quotas:
            free: { capacity: 10, refill: 2/s }
      """;

  private static BatchRule batch(String batch) {
    return ConfigLoader.parse(CONFIG.replace("BATCH", batch), Map.of())
        .providers().get("hooks").batch();
  }

  private static String error(String batch) {
    return assertThrows(ConfigException.class, () -> ConfigLoader.parse(
        CONFIG.replace("BATCH", batch), Map.of())).getMessage();
  }

  @Test
  void shouldCallOncePerEventWithoutBatch() {
    assertEquals(BatchRule.OFF, batch("maxInFlight: 4"));
    assertEquals(false, batch("maxInFlight: 4").on());
  }

  @Test
  void shouldTakeAMegabyteAndNoWaitByDefault() {
    assertEquals(new BatchRule(100, BatchRule.DEFAULT_BYTES, Duration.ZERO),
        batch("batch: { maxEvents: 100 }"));
    assertEquals(new BatchRule(50, 65536, Duration.ofMillis(200)),
        batch("batch: { maxEvents: 50, maxBytes: 65536, maxWait: 200ms }"));
  }

  @Test
  void shouldNameTheFieldOfABadBatch() {
    assertEquals("providers.hooks.batch.maxEvents: expected a whole number of events from 1 to"
        + " 1000, got 0", error("batch: { maxEvents: 0 }").lines().findFirst().orElseThrow());
    assertTrue(error("batch: { maxEvents: 1001 }").startsWith("providers.hooks.batch.maxEvents:"));
    assertTrue(error("batch: { maxEvents: 10, maxBytes: 10 }")
        .startsWith("providers.hooks.batch.maxBytes:"));
    assertTrue(error("batch: { maxEvents: 10, maxWait: soon }")
        .startsWith("providers.hooks.batch.maxWait:"));
    assertTrue(error("batch: { maxEvents: 10, maxWait: 1h }")
        .startsWith("providers.hooks.batch.maxWait:"), error("batch: { maxEvents: 10, maxWait: 1h }"));
    assertTrue(error("batch: { maxBytes: 4096 }").startsWith("providers.hooks.batch"),
        error("batch: { maxBytes: 4096 }"));
    assertTrue(error("batch: { maxEvents: 10, size: 3 }").startsWith("providers.hooks.batch"));
  }

  @Test
  void shouldSplitAQueueIntoCallsOfMaxEvents() {
    BatchRule rule = new BatchRule(100, BatchRule.DEFAULT_BYTES, Duration.ZERO);
    assertEquals(0, rule.callsFor(0));
    assertEquals(1, rule.callsFor(1));
    assertEquals(1, rule.callsFor(100));
    assertEquals(2, rule.callsFor(101));
    assertEquals(7, BatchRule.OFF.callsFor(7), "one call per event without batching");
  }
}
