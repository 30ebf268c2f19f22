package io.sluice.app.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusUtil;
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.config.LoggingConfig;
import io.sluice.config.SluiceConfig;
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
      assertEquals("json", encoder(context).getFormat());
      assertEquals(Level.ERROR, sluice.getLevel());
      assertFalse(LoggerFactory.getLogger("io.sluice.x").isWarnEnabled());
    } finally {
      Logging.apply(new LoggingConfig(Optional.of("text"), Optional.empty(), Optional.empty()));
      sluice.setLevel(before);
    }
    assertEquals("text", encoder(context).getFormat());
  }

  @Test
  @DisplayName("the jar's logback.xml loads without a warning (else Logback prints its own status on every start), text by default, JSON with SLUICE_LOGGING__FORMAT=json, libraries at WARN")
  void jarConfiguration() throws Exception {
    for (String format : new String[] {null, "json"}) {
      LoggerContext context = new LoggerContext();
      if (format != null) {
        context.putProperty("SLUICE_LOGGING__FORMAT", format);
      }
      JoranConfigurator joran = new JoranConfigurator();
      joran.setContext(context);
      joran.doConfigure(getClass().getResource("/logback.xml"));

      assertEquals(Status.INFO, new StatusUtil(context).getHighestLevel(0),
          context.getStatusManager().getCopyOfStatusList().toString());
      assertEquals(format == null ? "text" : "json", encoder(context).getFormat());
      assertEquals(Level.WARN, context.getLogger("org.apache.kafka.clients").getEffectiveLevel());
      assertEquals(Level.WARN, context.getLogger("io.lettuce.core").getEffectiveLevel());
      assertEquals(Level.INFO, context.getLogger("io.sluice.dispatcher").getEffectiveLevel());
      assertEquals(Level.INFO, context.getLogger("sluice.events").getEffectiveLevel());
      context.stop();
    }
  }

  private static LineEncoder encoder(LoggerContext context) {
    var it = context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders();
    while (it.hasNext()) {
      if (it.next() instanceof ConsoleAppender<ILoggingEvent> c && c.getEncoder() instanceof LineEncoder e) {
        return e;
      }
    }
    throw new AssertionError("no console appender with the jar's encoder on the root");
  }
}
