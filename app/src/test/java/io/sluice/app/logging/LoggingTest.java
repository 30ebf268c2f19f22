package io.sluice.app.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.config.LoggingConfig;
import io.sluice.config.SluiceConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class LoggingTest {
  private static final String PROVIDERS = """
      tiers: { std: { weight: 1 } }
      defaultTier: std
      providers: { p: { url: "http://127.0.0.1:1/", rate: 1/s, quotas: { std: { capacity: 1, refill: 1/s } } } }
      """;

  @Test
  @DisplayName("logging: in the file binds; a setting left out is empty, a wrong one is refused naming it")
  void configBinds() {
    SluiceConfig c = ConfigLoader.parse(PROVIDERS
        + "logging: { format: json, level: DEBUG }\n", Map.of());
    assertEquals(new LoggingConfig(Optional.of("json"), Optional.of("DEBUG"), Optional.empty()),
        c.logging());
    assertEquals(LoggingConfig.NONE, ConfigLoader.parse(PROVIDERS, Map.of()).logging());
    ConfigException e = assertThrows(ConfigException.class,
        () -> ConfigLoader.parse(PROVIDERS + "logging: { events: LOUD }\n", Map.of()));
    assertTrue(e.getMessage().contains("logging.events"), e.getMessage());
    assertEquals(Optional.of("json"), ConfigLoader.parse(PROVIDERS,
        Map.of("SLUICE_LOGGING__FORMAT", "json")).logging().format());
  }

  @Test
  @DisplayName("format json gives the root's console appenders the JSON layout, text gives the text one back; level sets io.sluice")
  void applySwitchesTheLayout() {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    Logger sluice = context.getLogger("io.sluice");
    Level before = sluice.getLevel();
    try {
      Logging.apply(new LoggingConfig(Optional.of("json"), Optional.of("ERROR"), Optional.empty()));
      assertTrue(console(context).getEncoder() instanceof JsonLineEncoder);
      assertEquals(Level.ERROR, sluice.getLevel());
      assertFalse(LoggerFactory.getLogger("io.sluice.x").isWarnEnabled());
    } finally {
      Logging.apply(new LoggingConfig(Optional.of("text"), Optional.empty(), Optional.empty()));
      sluice.setLevel(before);
    }
    assertFalse(console(context).getEncoder() instanceof JsonLineEncoder);
  }

  @Test
  @DisplayName("the jar's logback.xml uses the text pattern Logging switches back to")
  void textPatternIsLogbackXmls() throws IOException {
    try (InputStream in = getClass().getResourceAsStream("/logback.xml")) {
      String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(xml.contains("<pattern>" + TextLines.PATTERN.replace("%n", "%n</pattern>")), xml);
    }
  }

  private static ConsoleAppender<ILoggingEvent> console(LoggerContext context) {
    var it = context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders();
    while (it.hasNext()) {
      if (it.next() instanceof ConsoleAppender<ILoggingEvent> c) {
        return c;
      }
    }
    throw new AssertionError("no console appender on the root");
  }
}
