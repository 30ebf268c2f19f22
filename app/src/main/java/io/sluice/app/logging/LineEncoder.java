package io.sluice.app.logging;

import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;

/**
 * The jar's one encoder (logback.xml): readable text, or with {@code format} {@code json} the
 * {@link JsonLineEncoder}'s one JSON object per line. The format can change while Sluice runs
 * ({@link Logging#apply}); a line is written whole in one format or the other.
 */
public final class LineEncoder extends EncoderBase<ILoggingEvent> {
  /** The text layout: time, level, thread, logger, message, and the MDC's fields if any. */
  static final String PATTERN = "%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger{1}: "
      + "%msg%replace( {%mdc}){' \\{\\}', ''}%n";
  private static final byte[] NONE = new byte[0];

  private volatile String format = "text";
  private volatile Encoder<ILoggingEvent> delegate;

  /** {@code json} (any case) for JSON lines; anything else is text. */
  public void setFormat(String format) {
    this.format = "json".equalsIgnoreCase(format == null ? "" : format.trim()) ? "json" : "text";
    if (isStarted()) {
      delegate = build();
    }
  }

  public String getFormat() {
    return format;
  }

  @Override
  public void start() {
    delegate = build();
    super.start();
  }

  private Encoder<ILoggingEvent> build() {
    Encoder<ILoggingEvent> encoder;
    if (format.equals("json")) {
      encoder = new JsonLineEncoder();
    } else {
      PatternLayoutEncoder text = new PatternLayoutEncoder();
      text.setPattern(PATTERN);
      encoder = text;
    }
    encoder.setContext(getContext());
    encoder.start();
    return encoder;
  }

  @Override
  public byte[] headerBytes() {
    return NONE;
  }

  @Override
  public byte[] footerBytes() {
    return NONE;
  }

  @Override
  public byte[] encode(ILoggingEvent event) {
    return delegate.encode(event);
  }
}
