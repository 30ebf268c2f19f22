package io.sluice.app.logging;

import ch.qos.logback.classic.encoder.PatternLayoutEncoder;

/** The text layout of logback.xml, for {@link Logging} to switch back to from JSON. */
final class TextLines {
  /** logback.xml's pattern: keep the two the same. */
  static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{1}: "
      + "%msg%replace( {%mdc}){' \\{\\}', ''}%n";

  private TextLines() {}

  static PatternLayoutEncoder encoder() {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setPattern(PATTERN);
    return encoder;
  }
}
