package io.sluice.app.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;

/**
 * What a logger writes while a test runs, at the level the test asks; the logger's level and
 * appenders are as before once closed.
 */
final class CapturedLines implements AutoCloseable {
  private final Logger logger;
  private final Level before;
  private final ListAppender<ILoggingEvent> list = new ListAppender<>();

  CapturedLines(String name, Level level) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    logger = context.getLogger(name);
    before = logger.getLevel();
    logger.setLevel(level);
    list.setContext(context);
    list.start();
    logger.addAppender(list);
  }

  List<ILoggingEvent> events() {
    return List.copyOf(list.list);
  }

  /** Every line as the JSON layout writes it. */
  String json() {
    JsonLineEncoder encoder = new JsonLineEncoder();
    return events().stream().map(e -> new String(encoder.encode(e), StandardCharsets.UTF_8))
        .collect(Collectors.joining());
  }

  @Override
  public void close() {
    logger.detachAppender(list);
    logger.setLevel(before);
  }
}
