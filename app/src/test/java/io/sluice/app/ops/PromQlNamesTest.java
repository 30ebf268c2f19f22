package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Set;
import org.junit.jupiter.api.Test;

class PromQlNamesTest {

  @Test
  void shouldFindTheMetricOfASelectorButNotItsLabelsOrRange() {
    assertEquals(Set.of("sluice_dispatch_calls_total"),
        PromQlNames.of("rate(sluice_dispatch_calls_total{provider=~\"$provider\",tier!=\"a}b\"}[$__rate_interval])"));
  }

  @Test
  void shouldSkipAggregationsGroupingLabelsAndFunctions() {
    assertEquals(Set.of("sluice_dispatch_calls_total", "sluice_dispatch_configured_rate"), PromQlNames.of("""
        sum by (provider, tier) (rate(sluice_dispatch_calls_total[5m]))
          < 0.8 * max without (instance) (sluice_dispatch_configured_rate) offset 1h30m
        """));
  }

  @Test
  void shouldFindEveryOperandOfBinaryAndSetOperators() {
    assertEquals(Set.of("a_total", "b", "c"), PromQlNames.of(
        "a_total / on (provider) group_left (tier) b > bool 2 and c unless on(x) a_total or vector(0)"));
  }

  @Test
  void shouldKeepSuffixesAsWritten() {
    assertEquals(Set.of("lat_seconds", "lat_seconds_count"),
        PromQlNames.of("max(lat_seconds{quantile=\"0.99\"}) + rate(lat_seconds_count[1m])"));
  }

  @Test
  void shouldSkipNumbersInAnyNotation() {
    assertEquals(Set.of("x"), PromQlNames.of("x * 1e3 + .5 - 0x1F + Inf"));
  }

  @Test
  void shouldRefuseUnbalancedBraces() {
    assertThrows(IllegalArgumentException.class, () -> PromQlNames.of("x{a=\"1\""));
  }
}
