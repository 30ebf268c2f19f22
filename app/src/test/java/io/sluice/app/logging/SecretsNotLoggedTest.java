package io.sluice.app.logging;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.sluice.app.Preflight;
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SecretsNotLoggedTest {
  private static final String PASSWORD = "hunter2-kafka-7d1f";
  private static final String TOKEN = "admin-token-c9e2";

  @Test
  @DisplayName("a config with a SASL password and admin tokens, loaded and preflighted with every logger at INFO: neither secret in any line nor in the error")
  void secretsNeverLogged() {
    SluiceConfig config = ConfigLoader.parse("""
        kafka:
          bootstrap: "kafka.sluice-test.invalid:9092"
          properties:
            security.protocol: SASL_PLAINTEXT
            sasl.mechanism: PLAIN
            sasl.jaas.config: 'org.apache.kafka.common.security.plain.PlainLoginModule required username="sluice" password="%s";'
        admin: { readToken: "${env:READ}", writeToken: "${env:READ}" }
        logging: { format: json, events: INFO }
        tiers: { std: { weight: 1 } }
        defaultTier: std
        providers: { p: { url: "http://127.0.0.1:1/", rate: 1/s, quotas: { std: { capacity: 1, refill: 1/s } } } }
        """.formatted(PASSWORD), Map.of("READ", TOKEN));
    String lines;
    ConfigException refused;
    try (CapturedLines captured = new CapturedLines(Logger.ROOT_LOGGER_NAME, Level.INFO)) {
      Logging.apply(config.logging());
      refused = assertThrows(ConfigException.class, () -> Preflight.kafka(config));
      lines = captured.json();
    } finally {
      Logging.apply(new io.sluice.config.LoggingConfig(java.util.Optional.of("text"),
          java.util.Optional.empty(), java.util.Optional.empty()));
    }
    assertTrue(refused.getMessage().contains("does not resolve"), refused.getMessage());
    assertTrue(lines.contains("sasl.jaas.config"), "the client's configuration was logged: " + lines);
    for (String secret : new String[] {PASSWORD, TOKEN}) {
      assertFalse(lines.contains(secret), secret + " in the log: " + lines);
      assertFalse(refused.getMessage().contains(secret), refused.getMessage());
    }
  }
}
