package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.config.ConfigLoader;
import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfiguredLimitsTest {
  private static SluiceConfig config(String limits) {
    return ConfigLoader.parse("""
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers:
          api:
            url: http://localhost:8081/
            %s
            quotas: { std: { capacity: 10, refill: 1/s } }
        """.formatted(limits), Map.of());
  }

  private final LiveConfig live = new LiveConfig(config("rate: 50/s"));
  private final ConfiguredLimits limits = new ConfiguredLimits(live, "api");

  @Test
  void theNextClaimSeesTheLimitsOfAReloadedFile() {
    assertEquals(50, limits.current().ratePerSecond());

    live.reload(() -> config("limits: [{rate: 20/s}, {calls: 600, per: 1m, window: sliding}]"));

    assertEquals(20, limits.current().ratePerSecond());
    assertEquals(10, limits.current().sustainedCallsPerSecond(), 1e-9);
  }

  @Test
  void theSameConfigurationGivesTheSameLimitsWithoutRebuildingThem() {
    assertSame(limits.current(), limits.current());

    live.reload(() -> config("rate: 40/s"));
    ProviderLimits reloaded = limits.current();

    assertSame(reloaded, limits.current());
  }

  @Test
  void theDearestSendableEventIsTheSmallestCostWindow() {
    assertEquals(Long.MAX_VALUE, limits.current().largestSendableCost(), "no cost window: any");

    live.reload(() -> config("limits: [{rate: 20/s}, {cost: 5000, per: 1m}, {cost: 300, per: 1s}]"));

    assertEquals(300, limits.current().largestSendableCost());
  }

  @Test
  void theWindowMarginIsTheSmallestOfTheCallsAndCostWindows() {
    assertEquals(Long.MAX_VALUE, limits.current().windowMarginNanos(), "no window: no margin");

    live.reload(() -> config("limits: [{rate: 20/s}, {calls: 600, per: 1m, margin: 50ms},"
        + " {cost: 5000, per: 1m}, {concurrency: 4}]"));

    assertEquals(20_000_000L, limits.current().windowMarginNanos(),
        "the cost window keeps the default 20 ms, below the calls window's 50 ms");
  }

  @Test
  void aProviderThatIsNotConfiguredIsRefusedAtOnce() {
    assertThrows(IllegalArgumentException.class, () -> new ConfiguredLimits(live, "nope"));
  }
}
