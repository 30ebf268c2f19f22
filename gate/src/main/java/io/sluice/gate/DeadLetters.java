package io.sluice.gate;

import io.sluice.schemas.event.DeadLetter;
import io.sluice.schemas.event.EventLog;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Turns a record into its dead letter: the original key, value bytes and headers, plus the
 * reason, a human-readable detail and where it came from.
 */
final class DeadLetters {
  private DeadLetters() {}

  /** @param event the parsed event, or null when the value did not parse */
  static Record<byte[], Object> of(
      Record<byte[], ?> original, WorkEvent event, byte[] raw, Reason reason, String detail, String eventId,
      ProcessorContext<?, ?> context, long nowMillis) {
    Headers headers = new RecordHeaders(original.headers().toArray());
    String source = context.recordMetadata()
        .map(m -> m.topic() + "-" + m.partition() + "@" + m.offset())
        .orElse("unknown");
    Long firstSeen = HeaderValues.lastLong(headers, HeaderNames.FIRST_SEEN).orElse(nowMillis);
    Integer attempt = HeaderValues.lastLong(headers, HeaderNames.ATTEMPT).map(Long::intValue).orElse(null);
    new DeadLetter(reason.code(), detail, source, eventId, firstSeen, attempt).writeTo(headers);
    logged(original, event, reason, eventId, attempt);
    HeaderValues.put(headers, HeaderNames.FIRST_SEEN, firstSeen);
    return new Record<>(original.key(), (Object) raw, nowMillis, headers);
  }

  /** The event's line: tenant and provider from the parsed event, else the tenant the key names. */
  private static void logged(Record<byte[], ?> original, WorkEvent event, Reason reason, String eventId,
      Integer attempt) {
    String tenant;
    String provider = null;
    if (event != null) {
      tenant = event.tenant();
      provider = event.provider();
    } else {
      tenant = original.key() == null ? null : new String(original.key(), StandardCharsets.UTF_8);
    }
    EventLog.deadLettered("gate", tenant, provider, eventId, reason, null,
        attempt == null ? 0 : attempt);
  }
}
