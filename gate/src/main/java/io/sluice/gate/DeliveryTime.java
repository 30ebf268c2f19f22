package io.sluice.gate;

import io.sluice.config.DelayText;
import io.sluice.schemas.event.Reason;
import io.sluice.schemas.event.WorkEvent;
import java.time.Duration;
import java.time.Instant;

/**
 * When an event that asked for a time ({@code deliverAt}, {@code delay}) may go on to its quota,
 * decided once, when the gate first sees it. Pure: the time is passed in.
 *
 * <p>{@code now} is a lower bound of Redis's clock, the clock the relay judges every not-before
 * on: an event judged due here is due on Redis's clock, and one sent to wait is let out by the
 * relay no sooner than its time on that clock. So it is never called before its time, however
 * far the gate's or the relay's host clock is from Redis's.
 *
 * <p>Why the quota waits too: the event goes round the ladder unpaid, back to the gate, and is
 * charged when it falls due, like any event arriving then. Charged at arrival, a tenant
 * scheduling tomorrow's batch today would spend today's quota on it, and reservations
 * ({@code reservationHorizon}) could not reach a day ahead anyway.
 *
 * <p>Public for {@code sluice simulate}, which holds scheduled events by this same rule.
 */
public final class DeliveryTime {
  private DeliveryTime() {}

  /** What the gate does with the event. */
  public sealed interface Verdict permits Due, Later, Refused {}

  /** Due now (or it asked for no time): on to its quota. */
  public record Due() implements Verdict {}

  /** To wait, unpaid, until {@code notBeforeMillis} on Redis's clock. */
  public record Later(long notBeforeMillis) implements Verdict {}

  /** Dead-lettered: its own fault, decided here, never a provider attempt. */
  public record Refused(Reason reason, String detail) implements Verdict {}

  static final Due DUE = new Due();

  /**
   * @param maxDelay how far ahead the event's provider takes events
   * @param nowMillis a lower bound of Redis's clock
   */
  public static Verdict of(WorkEvent event, String provider, Duration maxDelay, long nowMillis) {
    if (!event.scheduled()) {
      return DUE;
    }
    long due = event.deliverAt() != null ? event.deliverAt().toEpochMilli()
        : nowMillis + event.delay().toMillis();
    String asked = event.deliverAt() != null ? "field 'deliverAt' is " + event.deliverAt()
        : "field 'delay' is " + DelayText.format(event.delay());
    if (due - nowMillis > maxDelay.toMillis()) {
      return new Refused(Reason.BEYOND_MAX_DELAY, asked + ", " + DelayText.format(Duration.ofMillis(due - nowMillis))
          + " ahead, beyond the maxDelay " + DelayText.format(maxDelay) + " of provider '" + provider + "'");
    }
    if (event.deadline() != null && due > event.deadline().toEpochMilli()) {
      return new Refused(Reason.INVALID, asked + ", after the event's deadline " + event.deadline()
          + " (it would expire before it is due)" + (event.deliverAt() != null ? ""
          : ": due at " + Instant.ofEpochMilli(due)));
    }
    return due <= nowMillis ? DUE : new Later(due);
  }
}
