package io.sluice.gate.limiter;

/**
 * What the limiter decided for one event. Times are epoch milliseconds on the bucket's clock.
 */
public sealed interface LimiterDecision {
  /** Charged and due now: the event goes to sluice.ready, admitted at {@code atMillis}. */
  record Admit(long atMillis) implements LimiterDecision {}

  /**
   * Charged ahead (a reservation): the event waits in the ladder and goes straight to
   * sluice.ready at {@code notBeforeMillis}, marked paid, without passing the gate again.
   */
  record Reserved(long notBeforeMillis) implements LimiterDecision {}

  /**
   * Not charged: beyond the reservation horizon. The event waits in the ladder until its turn in
   * the bucket's line ({@code notBeforeMillis}) and comes back to the gate holding a ticket.
   */
  record Queued(long notBeforeMillis) implements LimiterDecision {}

  /**
   * Shadow mode: the bucket could not pay now and charged, reserved and queued nothing; enforced,
   * the event would have waited until {@code notBeforeMillis}. The gate counts it and admits it.
   */
  record WouldDefer(long notBeforeMillis) implements LimiterDecision {}

  /** No decision could be had from Redis; the provider's onRedisDown policy decides. */
  record Unavailable(String why) implements LimiterDecision {}

  static long ceilMillis(long micros) {
    return Math.floorDiv(micros + 999, 1000);
  }
}
