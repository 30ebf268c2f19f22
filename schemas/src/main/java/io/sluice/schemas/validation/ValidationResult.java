package io.sluice.schemas.validation;

import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import java.util.Objects;

/**
 * The verdict on one inbound value: a bound {@link WorkEvent}, or the reason and a sentence for
 * the dead letter. A value, not an exception, because invalid input is an expected outcome on the
 * hot path (invariant 5: bad input never stops the pipeline) and exceptions would make it slow.
 */
public sealed interface ValidationResult {

  /** A value that satisfies the contract. */
  record Valid(WorkEvent event) implements ValidationResult {
    public Valid {
      Objects.requireNonNull(event, "event");
    }
  }

  /**
   * A value that does not; {@code detail} is a human-readable sentence that names the field and
   * becomes the dead letter's {@code sluice-detail} header.
   */
  record Invalid(Reason reason, String detail) implements ValidationResult {
    public Invalid {
      Objects.requireNonNull(reason, "reason");
      if (detail == null || detail.isBlank()) {
        throw new IllegalArgumentException("an invalid value needs a detail");
      }
    }
  }

  default boolean isValid() {
    return this instanceof Valid;
  }
}
