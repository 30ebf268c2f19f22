package io.sluice.app.dlq;

import io.sluice.schemas.event.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Dead letters as the gate and the dispatcher write them, for the dlq tests. */
final class Letters {
  static final String DLQ = "sluice.dlq";

  private Letters() {}

  static String event(String id, String tenant, String provider, String deadline) {
    return "{\"id\":\"" + id + "\",\"tenant\":\"" + tenant + "\",\"provider\":\"" + provider
        + "\"" + (deadline == null ? "" : ",\"deadline\":\"" + deadline + "\"")
        + ",\"payload\":{\"amount\":12}}";
  }

  /** A dispatcher's dead letter: the event's bytes and a producer header, plus Sluice's. */
  static Headers headers(String reason, String id) {
    Headers h = new RecordHeaders();
    h.add("traceparent", "00-abc-def-01".getBytes(StandardCharsets.UTF_8));
    h.add("sluice-tier", "pro".getBytes(StandardCharsets.UTF_8));
    new DeadLetter(reason, "provider answered 400", "sluice.ready-1@7", id, 1_000L, 1)
        .writeTo(h);
    return h;
  }

  static DeadLetterEntry letter(long offset, String reason, String id, String tenant,
      String provider, String deadline, Instant time) {
    return DeadLetterEntry.of(DLQ, 0, offset, time.toEpochMilli(),
        tenant.getBytes(StandardCharsets.UTF_8),
        event(id, tenant, provider, deadline).getBytes(StandardCharsets.UTF_8),
        headers(reason, id));
  }
}
