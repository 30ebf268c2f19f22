package io.sluice.config;

import java.util.Optional;

/**
 * How Sluice logs ({@code logging:} in the file; docs/operations.md, "Logs"). Each setting left
 * out keeps what the logging configuration says (the jar's {@code logback.xml}, or the file
 * {@code -Dlogback.configurationFile} names): text, Sluice's loggers at INFO, event lines at
 * INFO.
 *
 * @param format {@code text} or {@code json} (one JSON object per line)
 * @param level  the level of Sluice's own loggers ({@code io.sluice}): TRACE, DEBUG, INFO, WARN,
 *               ERROR or OFF; the libraries' (Kafka, Lettuce) stay at WARN
 * @param events the level each event line (delivered, retried, dead-lettered) is written at:
 *               INFO, DEBUG, or OFF for none
 */
public record LoggingConfig(Optional<String> format, Optional<String> level,
    Optional<String> events) {
  /** Nothing set: the logging configuration's own settings. */
  public static final LoggingConfig NONE =
      new LoggingConfig(Optional.empty(), Optional.empty(), Optional.empty());
}
