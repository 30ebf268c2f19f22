package io.sluice.schemas.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;

/**
 * What Sluice knows about a dead letter, as tooling shows it (mirrors
 * {@code schemas/dead-letter.schema.json}).
 *
 * <p>On {@code sluice.dlq} a dead letter is the original record, byte for byte: same key, same
 * value, same headers, because invariant 5 says bad input goes to the DLQ "with the original
 * bytes", and an operator must be able to replay it unchanged. So this metadata never lives in the
 * value; it travels in headers added next to the originals ({@link #writeTo}, {@link
 * #fromHeaders}). The JSON form exists for tools that print or export dead letters.
 *
 * @param reason    a {@link Reason} code, e.g. {@code invalid}; required. Kept as text so that a
 *                  tool reading a newer Sluice's dead letters does not fail on a new code
 * @param detail    a human-readable sentence, e.g. naming the invalid field; null if unknown
 * @param source    where the record was read, {@code topic-partition@offset}; null if unknown
 * @param eventId   the WorkEvent id when the value parsed far enough to have one; else null
 * @param firstSeen epoch milliseconds when Sluice first saw the event; null if unknown
 * @param attempt   provider attempts made; null if none were recorded
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeadLetter(
    String reason,
    String detail,
    String source,
    String eventId,
    Long firstSeen,
    Integer attempt) {

  public DeadLetter {
    Objects.requireNonNull(reason, "reason");
    if (reason.isBlank()) {
      throw new IllegalArgumentException("reason must not be blank");
    }
  }

  /** A dead letter for a record read at {@code source}, with nothing else known yet. */
  public static DeadLetter of(Reason reason, String detail, String source) {
    return new DeadLetter(reason.code(), detail, source, null, null, null);
  }

  /** The {@code topic-partition@offset} form of {@link #source}. */
  public static String source(String topic, int partition, long offset) {
    return topic + "-" + partition + "@" + offset;
  }

  /**
   * Reads the metadata a dead letter carries in its headers.
   *
   * @throws IllegalArgumentException if there is no {@code sluice-reason} header: then the record
   *                                  is not a dead letter, and guessing a reason would mislead
   */
  public static DeadLetter fromHeaders(Headers headers) {
    String reason = HeaderValues.last(headers, HeaderNames.REASON)
        .orElseThrow(() -> new IllegalArgumentException(
            "not a dead letter: no " + HeaderNames.REASON + " header"));
    return new DeadLetter(
        reason,
        HeaderValues.last(headers, HeaderNames.DETAIL).orElse(null),
        HeaderValues.last(headers, HeaderNames.SOURCE).orElse(null),
        HeaderValues.last(headers, HeaderNames.EVENT_ID).orElse(null),
        HeaderValues.lastLong(headers, HeaderNames.FIRST_SEEN).orElse(null),
        HeaderValues.lastLong(headers, HeaderNames.ATTEMPT).map(Long::intValue).orElse(null));
  }

  /**
   * Writes this metadata into a record's headers, replacing earlier values of the same names (a
   * record deferred with {@code rate_limited} and later dead with {@code max_attempts} must show
   * only the latter). Null fields leave their header as it is: the original record's
   * {@code sluice-first-seen} or {@code sluice-attempt} stay true even when this dead letter does
   * not know them.
   */
  public void writeTo(Headers headers) {
    HeaderValues.put(headers, HeaderNames.REASON, reason);
    if (detail != null) {
      HeaderValues.put(headers, HeaderNames.DETAIL, detail);
    }
    if (source != null) {
      HeaderValues.put(headers, HeaderNames.SOURCE, source);
    }
    if (eventId != null) {
      HeaderValues.put(headers, HeaderNames.EVENT_ID, eventId);
    }
    if (firstSeen != null) {
      HeaderValues.put(headers, HeaderNames.FIRST_SEEN, firstSeen);
    }
    if (attempt != null) {
      HeaderValues.put(headers, HeaderNames.ATTEMPT, attempt);
    }
  }

  /** The reason as an enum; empty for a code this version does not know. */
  @JsonIgnore
  public Optional<Reason> reasonCode() {
    return Reason.fromCode(reason);
  }
}
