package io.sluice.app.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.slf4j.event.KeyValuePair;

/**
 * The JSON layout: one JSON object per line, flat, for a log shipper to index without parsing
 * text:
 * <pre>{"time":"2026-11-26T19:40:01.123Z","level":"INFO","logger":"sluice.events",
 * "thread":"dispatch-payments-api","message":"delivered (status 200)","tenant":"acme",
 * "provider":"payments-api","eventId":"e-1","outcome":"delivered","status":"200","attempts":"1"}</pre>
 * The MDC's entries and the record's key-value pairs become fields of their own (one named like
 * a fixed field is written as {@code mdc.<name>}); an exception adds {@code error} (its class and
 * message) and {@code stack}. Jackson escapes every control character, so no value can break the
 * line.
 */
public final class JsonLineEncoder extends EncoderBase<ILoggingEvent> {
  private static final JsonFactory JSON = new JsonFactory();
  private static final byte[] NONE = new byte[0];
  private static final Set<String> FIXED =
      Set.of("time", "level", "logger", "thread", "message", "error", "stack");

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
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator json = JSON.createGenerator(out)) {
      json.writeStartObject();
      json.writeStringField("time", Instant.ofEpochMilli(event.getTimeStamp()).toString());
      json.writeStringField("level", event.getLevel().toString());
      json.writeStringField("logger", event.getLoggerName());
      json.writeStringField("thread", event.getThreadName());
      json.writeStringField("message", event.getFormattedMessage());
      Map<String, String> mdc = event.getMDCPropertyMap();
      if (mdc != null) {
        for (Map.Entry<String, String> e : mdc.entrySet()) {
          json.writeStringField(name(e.getKey()), e.getValue());
        }
      }
      if (event.getKeyValuePairs() != null) {
        for (KeyValuePair kv : event.getKeyValuePairs()) {
          json.writeStringField(name(kv.key), String.valueOf(kv.value));
        }
      }
      IThrowableProxy error = event.getThrowableProxy();
      if (error != null) {
        json.writeStringField("error", error.getClassName() + ": " + error.getMessage());
        json.writeStringField("stack", ThrowableProxyUtil.asString(error));
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    out.write('\n');
    return out.toByteArray();
  }

  private static String name(String key) {
    return FIXED.contains(key) ? "mdc." + key : key;
  }
}
