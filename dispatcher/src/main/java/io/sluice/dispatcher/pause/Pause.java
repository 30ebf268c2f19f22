package io.sluice.dispatcher.pause;

import java.time.Instant;
import java.util.Objects;

/**
 * One pause in force: what it covers, who asked for it, when (on Redis's clock, the one every
 * host shares), and why. {@code by} and {@code reason} are always {@link OperatorText#clean}ed:
 * made so here, whatever wrote them (a person, the admin API, a stranger's write to Redis).
 *
 * @param scope  what is paused
 * @param by     who paused it ({@code user@host} for the CLI, {@code admin-api@<address>} for the
 *               admin API), at most {@value OperatorText#MAX_WHO} code points
 * @param at     when it was written, or {@link Instant#EPOCH} when the record does not say
 * @param reason why, at most {@value OperatorText#MAX_REASON} code points; may be empty
 */
public record Pause(PauseScope scope, String by, Instant at, String reason) {
  public Pause {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(at, "at");
    by = OperatorText.clean(by, OperatorText.MAX_WHO);
    reason = OperatorText.clean(reason, OperatorText.MAX_REASON);
  }
}
