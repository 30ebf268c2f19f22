package io.sluice.dispatcher.dispatch.intake;

import io.sluice.config.SluiceConfig;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.validation.EventRules;
import io.sluice.schemas.validation.EventValidator;
import io.sluice.schemas.validation.ValidationResult;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;

/**
 * Decides whether a record read from {@code sluice.ready} can be dispatched, or must be
 * dead-lettered at once. Pure and thread-safe.
 *
 * <p>The gate writes only valid events there, but the topic is not the gate's alone: a DLQ
 * replayed by hand, a tool writing straight into it, a gate of another version. Before this check
 * such a record (no tenant, cost 0, a null value) threw inside the fair queue and killed the
 * dispatcher thread (a supervisor restarts it now, but the record would kill the next one too).
 * So the dispatcher applies the gate's own structural and configuration rules
 * ({@link EventValidator}, {@link EventRules#checkSendable}) once more, and checks the headers it
 * relies on. The admission rules are not judged again: an event the gate
 * admitted under a larger {@code maxPayloadBytes} or {@code maxCost} (since lowered by a reload)
 * was paid for and is still deliverable; a cost above the provider's smallest cost window is not.
 */
public final class ReadyRecordCheck {
  /** What to do with one record. */
  public sealed interface Verdict {}

  /** A well-formed event: queue it. */
  record Dispatch(WorkEvent event, String tier, int attempts, Long firstSeen) implements Verdict {}

  /** Dead-letter it with {@code reason}; {@code detail} names what is wrong. */
  record Reject(Reason reason, String detail) implements Verdict {}

  private final SluiceConfig config;
  private final EventValidator validator = new EventValidator();
  private final EventRules rules;

  public ReadyRecordCheck(SluiceConfig config) {
    this.config = config;
    this.rules = new EventRules(config, validator);
  }

  Verdict check(byte[] value, Headers headers) {
    if (value == null) {
      return new Reject(Reason.INVALID, "value is null (a tombstone); a WorkEvent must be a JSON "
          + "object");
    }
    Optional<String> attemptText = HeaderValues.last(headers, HeaderNames.ATTEMPT);
    int attempts = 0;
    if (attemptText.isPresent()) {
      Optional<Long> parsed = HeaderValues.lastLong(headers, HeaderNames.ATTEMPT);
      if (parsed.isEmpty() || parsed.get() < 0 || parsed.get() > Integer.MAX_VALUE) {
        return new Reject(Reason.INVALID, "header " + HeaderNames.ATTEMPT + " is \""
            + abbreviate(attemptText.get()) + "\"; it must be a count of attempts, 0 or more");
      }
      attempts = parsed.get().intValue();
    }
    // The payload is never read as a tree here: the provider call slices it from the bytes.
    ValidationResult structure = validator.validateLeavingPayload(value);
    if (structure instanceof ValidationResult.Invalid invalid) {
      return new Reject(invalid.reason(), invalid.detail());
    }
    WorkEvent event = ((ValidationResult.Valid) structure).event();
    // Neither the size nor maxCost is judged again here (see the class comment).
    if (rules.checkSendable(event) instanceof ValidationResult.Invalid invalid) {
      return new Reject(invalid.reason(), invalid.detail());
    }
    String tier = HeaderValues.last(headers, HeaderNames.TIER)
        .or(() -> config.tierOf(event.tenant()))
        .orElse("");
    Long firstSeen = HeaderValues.lastLong(headers, HeaderNames.FIRST_SEEN).orElse(null);
    return new Dispatch(event, tier, attempts, firstSeen);
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
