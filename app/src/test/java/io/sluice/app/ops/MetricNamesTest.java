package io.sluice.app.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MetricNamesTest {

  @Test
  void shouldWriteLabelsSortedByNameWhateverTheOrderGiven() {
    assertEquals("sluice_gate_admitted{provider=\"payments-api\",tier=\"pro\"}",
        MetricNames.name("sluice_gate_admitted", "tier", "pro", "provider", "payments-api"));
  }

  @Test
  void shouldWriteANameWithoutLabelsAsTheBaseAlone() {
    assertEquals("sluice_relay_lag", MetricNames.name("sluice_relay_lag"));
  }

  @Test
  void shouldEscapeBackslashQuoteAndLineFeedInValues() {
    assertEquals("x{reason=\"a\\\\b \\\"c\\\"\\nd\"}", MetricNames.name("x", "reason", "a\\b \"c\"\nd"));
  }

  @Test
  void shouldReadBackTheBaseAndLabelsItWrote() {
    String name = MetricNames.name("sluice_dead", "reason", "say \"hi\"\\\n", "tier", "free");
    MetricName parsed = MetricNames.parse(name).orElseThrow();
    assertEquals("sluice_dead", parsed.base());
    assertEquals(Map.of("reason", "say \"hi\"\\\n", "tier", "free"), parsed.labels());
  }

  @Test
  void shouldReadAPlainDropwizardNameAsASanitizedBase() {
    MetricName parsed = MetricNames.parse("kafka.producer.io-wait.ratio").orElseThrow();
    assertEquals("kafka_producer_io_wait_ratio", parsed.base());
    assertTrue(parsed.labels().isEmpty());
  }

  @Test
  void shouldPrefixANameThatStartsWithADigit() {
    assertEquals("_5xx_count_like", MetricNames.parse("5xx.count-like").orElseThrow().base());
  }

  @ParameterizedTest
  @ValueSource(strings = {"queue_count", "kafka.bytes-total", "x_sum", "x.bucket"})
  void shouldNotReadBackAPlainNameEndingInASuffixTheExpositionAdds(String registryName) {
    assertTrue(MetricNames.parse(registryName).isEmpty(), registryName);
  }

  @ParameterizedTest
  @ValueSource(strings = {"tenant", "tenant_id", "TenantId", "by_tenant"})
  void shouldRefuseLabelsThatWouldCarryTenantIds(String label) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MetricNames.name("sluice_gate_admitted", label, "acme"));
    assertTrue(e.getMessage().contains("no tenant ids"), e.getMessage());
  }

  @Test
  void shouldNotReadBackARegistryNameWithATenantLabel() {
    assertTrue(MetricNames.parse("sluice_gate_admitted{tenant=\"acme\"}").isEmpty());
  }

  @ParameterizedTest
  @ValueSource(strings = {"x_total", "x_count", "x_sum", "x_bucket"})
  void shouldRefuseBaseNamesEndingInASuffixTheExpositionAdds(String base) {
    assertThrows(IllegalArgumentException.class, () -> MetricNames.name(base));
  }

  @ParameterizedTest
  @ValueSource(strings = {"sluice.gate", "9lives", "a:b", "", "a-b"})
  void shouldRefuseBaseNamesPrometheusWouldNotAccept(String base) {
    assertThrows(IllegalArgumentException.class, () -> MetricNames.name(base));
  }

  @ParameterizedTest
  @ValueSource(strings = {"quantile", "le", "__name__", "1st", "a-b"})
  void shouldRefuseReservedOrInvalidLabelNames(String label) {
    assertThrows(IllegalArgumentException.class, () -> MetricNames.name("x", label, "v"));
  }

  @Test
  void shouldRefuseAnOddNumberOfLabelStrings() {
    assertThrows(IllegalArgumentException.class, () -> MetricNames.name("x", "tier"));
  }

  @Test
  void shouldRefuseALabelGivenTwice() {
    assertThrows(IllegalArgumentException.class, () -> MetricNames.name("x", "tier", "a", "tier", "b"));
  }

  @Test
  void shouldRefuseAnEmptyValue() {
    assertThrows(IllegalArgumentException.class, () -> MetricNames.name("x", "tier", ""));
  }
}
