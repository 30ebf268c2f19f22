package io.sluice.app.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import io.sluice.config.LoggingConfig;
import io.sluice.schemas.event.EventLog;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * Sluice's hold on its logging backend (Logback): applies the config's {@code logging:}, and
 * reads and sets logger levels for the admin API ({@code /admin/loggers}). Every level change is
 * the process's, at once, for every thread.
 */
public final class Logging {
  /** The levels an operator may set; OFF silences a logger. */
  public static final List<String> LEVELS = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");
  /** The longest logger name accepted. */
  public static final int MAX_NAME = 200;
  /** A logger name: Java identifiers and dots ({@code ROOT} is the root logger). */
  private static final Pattern NAME = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$.-]*");

  /** The logging backend is not Logback (the jar's own is replaced): levels cannot be set. */
  public static final class NotLogback extends IllegalStateException {
    NotLogback() {
      super("the logging backend is not Logback: levels are set in its own configuration");
    }
  }

  /** A logger's level as set on it (null: inherited) and as in effect. */
  public record LoggerLevel(String name, String level, String effective) {}

  private Logging() {}

  /** Applies what {@code logging:} sets; what it leaves out stays as configured. */
  public static void apply(LoggingConfig config) {
    config.events().ifPresent(EventLog::writeAt);
    Optional<LoggerContext> context = context();
    if (context.isEmpty()) {
      return;
    }
    config.level().ifPresent(level -> context.get().getLogger("io.sluice")
        .setLevel(Level.toLevel(level)));
    config.format().ifPresent(format -> useFormat(context.get(), format));
  }

  /**
   * Switches the jar's encoder ({@link LineEncoder}) on the root's appenders to {@code format}.
   * An appender with an encoder of its own (a file named by {@code -Dlogback.configurationFile})
   * keeps it: that file decides.
   */
  static void useFormat(LoggerContext context, String format) {
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
      if (it.next() instanceof OutputStreamAppender<ILoggingEvent> out
          && out.getEncoder() instanceof LineEncoder lines) {
        lines.setFormat(format);
      }
    }
  }

  /** The loggers with a level of their own (the root first), as Logback holds them now. */
  public static List<LoggerLevel> levels() {
    LoggerContext context = context().orElseThrow(NotLogback::new);
    List<LoggerLevel> out = new ArrayList<>();
    for (Logger logger : context.getLoggerList()) {
      if (logger.getLevel() != null) {
        out.add(level(logger));
      }
    }
    return out;
  }

  /** One logger's levels (Logback makes it if it did not exist yet). */
  public static LoggerLevel level(String name) {
    return level(context().orElseThrow(NotLogback::new).getLogger(checkName(name)));
  }

  /**
   * Sets a logger's level; null hands it back to its parent's (not for the root).
   *
   * @throws IllegalArgumentException for a name or level not accepted (the message may be shown)
   */
  public static LoggerLevel set(String name, String level) {
    checkName(name);
    Level to = null;
    if (level != null) {
      String upper = level.toUpperCase(Locale.ROOT);
      if (!LEVELS.contains(upper)) {
        throw new IllegalArgumentException("level must be one of " + String.join(", ", LEVELS)
            + ", or null to inherit");
      }
      to = Level.toLevel(upper);
    } else if (name.equalsIgnoreCase(Logger.ROOT_LOGGER_NAME)) {
      throw new IllegalArgumentException("the root logger needs a level");
    }
    Logger logger = context().orElseThrow(NotLogback::new).getLogger(name);
    logger.setLevel(to);
    return level(logger);
  }

  private static String checkName(String name) {
    if (name == null || name.length() > MAX_NAME || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("a logger name is at most " + MAX_NAME
          + " letters, digits, '.', '_', '$' and '-', like io.sluice.dispatcher or ROOT");
    }
    return name;
  }

  private static LoggerLevel level(Logger logger) {
    return new LoggerLevel(logger.getName(),
        logger.getLevel() == null ? null : logger.getLevel().toString(),
        logger.getEffectiveLevel().toString());
  }

  private static Optional<LoggerContext> context() {
    return LoggerFactory.getILoggerFactory() instanceof LoggerContext c
        ? Optional.of(c) : Optional.empty();
  }
}
