package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** {@code tracing:} is off by default, and a bad value stops the start naming its field. */
class TracingConfigTest {
  private static final String MINIMAL = ConfigLoaderTest.MINIMAL;

  @Test
  @DisplayName("without tracing: in the file, tracing is off")
  void offByDefault() {
    TracingConfig tracing = ConfigLoader.parse(MINIMAL, Map.of()).tracing();
    assertFalse(tracing.enabled());
    assertEquals(TracingConfig.OFF, tracing);
  }

  @Test
  @DisplayName("an endpoint switches it on, with the ratio, queue and name given")
  void onWithAnEndpoint() {
    TracingConfig tracing = ConfigLoader.parse(MINIMAL
        + "tracing: { otlpEndpoint: http://collector:4318, sampleRatio: 0.25, maxQueue: 100, serviceName: s1 }\n",
        Map.of()).tracing();
    assertTrue(tracing.enabled());
    assertEquals(URI.create("http://collector:4318"), tracing.otlpEndpoint().orElseThrow());
    assertEquals(0.25, tracing.sampleRatio());
    assertEquals(100, tracing.maxQueue());
    assertEquals("s1", tracing.serviceName());
  }

  @Test
  @DisplayName("a bad endpoint, ratio or queue stops the start, naming the field")
  void badValuesNameTheirField() {
    assertTrue(error("tracing: { otlpEndpoint: 'collector:4318' }\n").contains("tracing.otlpEndpoint"));
    assertTrue(error("tracing: { otlpEndpoint: http://c:4318, sampleRatio: 1.5 }\n").contains("tracing.sampleRatio"));
    assertTrue(error("tracing: { otlpEndpoint: http://c:4318, maxQueue: 0 }\n").contains("tracing.maxQueue"));
    assertTrue(error("tracing: { endpoint: http://c:4318 }\n").contains("tracing"));
  }

  private static String error(String yaml) {
    return assertThrows(ConfigException.class, () -> ConfigLoader.parse(MINIMAL + yaml, Map.of())).getMessage();
  }
}
