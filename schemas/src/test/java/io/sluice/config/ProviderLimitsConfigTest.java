package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A provider's {@code limits:}: what they bind to, and every mistake named by its field. */
class ProviderLimitsConfigTest {
  private static final String WITH_LIMITS = """
      tiers:
        free: { weight: 1 }
      providers:
        openai:
          url: http://localhost:8081/hooks
          LIMITS
          quotas:
            free: { capacity: 10, refill: 2/s }
      """;

  private static ProviderConfig provider(String limits) {
    return ConfigLoader.parse(WITH_LIMITS.replace("LIMITS", limits), Map.of())
        .providers().get("openai");
  }

  private static String error(String limits) {
    return assertThrows(ConfigException.class, () -> ConfigLoader.parse(
        WITH_LIMITS.replace("LIMITS", limits), Map.of())).getMessage();
  }

  @Test
  void shouldBindEveryKindOfLimitInOrder() {
    ProviderConfig p = provider("limits: [{rate: 10/s}, {calls: 1000, per: 1h, window: sliding},"
        + " {cost: 200000, per: 1m, window: fixed, margin: 50ms}, {concurrency: 8},"
        + " {calls: 5000, per: 1d, window: fixed}]");
    assertEquals(List.of(
        ProviderLimit.rate(10),
        ProviderLimit.calls(1000, Duration.ofHours(1), ProviderLimit.Window.SLIDING),
        new ProviderLimit(ProviderLimit.Kind.COST, 200000, Duration.ofMinutes(1),
            ProviderLimit.Window.FIXED, Duration.ofMillis(50)),
        ProviderLimit.concurrency(8),
        ProviderLimit.calls(5000, Duration.ofDays(1), ProviderLimit.Window.FIXED)), p.limits());
    assertEquals(10, p.rate().perSecond(), "rate() is the RATE limit's");
  }

  @Test
  void shouldLetARateVariableSetTheRateAmongTheLimitsTheFileDeclares() {
    ProviderConfig p = ConfigLoader.parse(WITH_LIMITS.replace("LIMITS",
        "limits: [{calls: 600, per: 1m}, {rate: 10/s}]"),
        Map.of("SLUICE_PROVIDERS__OPENAI__RATE", "4/s")).providers().get("openai");
    assertEquals(List.of(ProviderLimit.calls(600, Duration.ofMinutes(1), ProviderLimit.Window.SLIDING),
        ProviderLimit.rate(4)), p.limits());
  }

  @Test
  void shouldAddTheRateAVariableSetsWhenTheLimitsHaveNone() {
    ProviderConfig p = ConfigLoader.parse(WITH_LIMITS.replace("LIMITS",
        "limits: [{calls: 600, per: 1m}]"),
        Map.of("SLUICE_PROVIDERS__OPENAI__RATE", "4/s")).providers().get("openai");
    assertEquals(4, p.rate().perSecond());
    assertTrue(p.limits().contains(ProviderLimit.calls(600, Duration.ofMinutes(1),
        ProviderLimit.Window.SLIDING)), p.limits().toString());
  }

  @Test
  void shouldBlameTheRateVariableForABadRateItPutAmongTheLimits() {
    String message = assertThrows(ConfigException.class, () -> ConfigLoader.parse(
        WITH_LIMITS.replace("LIMITS", "limits: [{rate: 10/s}]"),
        Map.of("SLUICE_PROVIDERS__OPENAI__RATE", "fast"))).getMessage();
    assertTrue(message.contains("providers.openai.limits[0].rate"), message);
    assertTrue(message.contains("SLUICE_PROVIDERS__OPENAI__RATE"), message);
  }

  @Test
  void shouldMakeRateAloneMeanOneRateLimit() {
    ProviderConfig p = provider("rate: 50/s");
    assertEquals(List.of(ProviderLimit.rate(50)), p.limits());
  }

  @Test
  void shouldDefaultToASlidingWindowWithATwentyMillisecondMargin() {
    ProviderLimit calls = provider("limits: [{rate: 1/s}, {calls: 10, per: 1m}]").limits().get(1);
    assertEquals(ProviderLimit.Window.SLIDING, calls.window());
    assertEquals(Duration.ofMillis(20), calls.margin());
  }

  @Test
  void shouldRefuseRateTogetherWithLimits() {
    assertEquals("providers.openai.limits: cannot be given together with rate: rate: R means "
        + "limits: [{rate: R}], so put the rate in limits",
        error("rate: 5/s\n    limits: [{rate: 10/s}]"));
  }

  @Test
  void shouldRequireRateOrLimits() {
    assertEquals("providers.openai.rate: is required: give the provider a rate like \"50/s\", "
        + "or limits", error("maxCost: 5"));
  }

  @Test
  void shouldNameTheLimitWhosePerIsWrong() {
    assertEquals("providers.openai.limits[1].per: expected a window above zero like \"1s\", "
        + "\"1m\", \"1h\" or \"1d\", got \"0m\"",
        error("limits: [{rate: 1/s}, {calls: 10, per: 0m}]"));
    assertEquals("providers.openai.limits[1].per: is required for a cost limit: the window, like "
        + "\"1m\", \"1h\" or \"1d\"", error("limits: [{rate: 1/s}, {cost: 10}]"));
    assertEquals("providers.openai.limits[0].per: applies only to calls and cost limits, not to "
        + "rate", error("limits: [{rate: 1/s, per: 1m}]"));
  }

  @Test
  void shouldNameALimitOfTwoKindsOrNone() {
    assertEquals("providers.openai.limits[1]: names [calls, cost]: a limit is exactly one of "
        + "rate, calls, cost or concurrency",
        error("limits: [{rate: 1/s}, {calls: 10, cost: 5, per: 1m}]"));
  }

  @Test
  void shouldRequireExactlyOneRate() {
    assertTrue(error("limits: [{calls: 10, per: 1m}]").startsWith(
        "providers.openai.limits: needs one {rate: ...} limit"));
    assertEquals("providers.openai.limits: has 2 rate limits; give at most one",
        error("limits: [{rate: 1/s}, {rate: 2/s}]"));
  }

  @Test
  void shouldLetTheSchemaNameAWrongWindowKindOrAmount() {
    assertTrue(error("limits: [{rate: 1/s}, {calls: 10, per: 1m, window: rolling}]")
        .startsWith("providers.openai.limits[1].window:"));
    assertTrue(error("limits: [{rate: 1/s}, {concurrency: 0}]")
        .startsWith("providers.openai.limits[1].concurrency:"));
  }

  @Test
  void shouldCapTheSendableCostAtTheSmallestCostWindow() {
    assertEquals(40, provider("maxCost: 100\n    limits: [{rate: 1/s}, {cost: 40, per: 1m}, "
        + "{cost: 500, per: 1h}]").largestSendableCost());
    assertEquals(100, provider("maxCost: 100\n    rate: 1/s").largestSendableCost());
  }
}
