package io.sluice.app.dlq;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;

/**
 * One dead letter as {@code dlq list} prints it: what an operator reads, without the value bytes
 * (only their size), so a listing of 10,000 dead letters stays small.
 *
 * @param at         the dead letter's coordinates in the dead-letter topic
 * @param time       when it was dead-lettered, ISO-8601
 * @param reason     its {@code sluice-reason} ({@code -} if it has none)
 * @param detail     its {@code sluice-detail}
 * @param source     where Sluice read the event when it died ({@code sluice-source})
 * @param eventId    the event id
 * @param tenant     the event's tenant
 * @param provider   the event's provider
 * @param attempts   provider attempts made
 * @param valueBytes the original value's size; null when the dead letter has no value
 * @param replayOf   the dead letter this event is a replay of, when it is one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeadLetterRow(String at, String time, String reason, String detail, String source,
    String eventId, String tenant, String provider, Integer attempts, Integer valueBytes,
    String replayOf) {

  static DeadLetterRow of(DeadLetterEntry e) {
    var m = e.meta();
    return new DeadLetterRow(e.at(), e.time().toString(), e.reason(),
        m == null ? null : m.detail(), m == null ? null : m.source(), e.eventId(), e.tenant(),
        e.provider(), m == null ? null : m.attempt(), e.value() == null ? null : e.value().length,
        e.replayOf());
  }

  /** One line for a terminal: every field a producer could write made printable and cut. */
  public String line() {
    List<String> fields = new ArrayList<>(List.of(at, time, Printable.of(reason, 40),
        Printable.of(tenant, 40), Printable.of(provider, 40), Printable.of(eventId, 64),
        "attempts=" + (attempts == null ? "-" : attempts),
        valueBytes == null ? "no-value" : valueBytes + "B"));
    if (replayOf != null) {
      fields.add("replay-of=" + Printable.of(replayOf, 80));
    }
    fields.add(Printable.of(detail, 160));
    return String.join("  ", fields);
  }
}
