package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.provider.ProviderResult;
import io.sluice.schemas.event.Reason;

/**
 * What the dispatcher reports, for metrics, the demo and tests. Called from several threads;
 * implementations must be thread-safe and quick. Tenant ids are deliberately absent.
 */
public interface DispatchListener extends LimitLearner.Listener {
  /**
   * A call started in the leak slot {@code slotMicros} (on the leak's clock), {@code lateNanos}
   * after the slot's local due time (timer and scheduling delay: what eats into the provider's
   * burst tolerance).
   */
  default void callStarted(String provider, String tier, long slotMicros, long lateNanos) {}

  /** A call came back (or failed) after {@code latencyNanos}. */
  default void callEnded(String provider, String tier, ProviderResult result, long latencyNanos) {}

  /** The event reached {@code sluice.outcomes}. */
  default void delivered(String provider, String tier) {}

  /** The event went back through the ladder (overflow or a retryable failure). */
  default void deferred(String provider, String tier, Reason reason) {}

  /** The event went to {@code sluice.dlq}. {@code provider}/{@code tier} may be null. */
  default void dead(String provider, String tier, Reason reason) {}

  /** The provider said "too many": its leak pauses and slows. */
  default void throttled(String provider, long retryAfterMillis) {}

  /** The leak could not be reached (Redis); the provider's onRedisDown policy applies. */
  default void leakUnavailable(String provider, Throwable cause) {}

  /**
   * A leak slot this instance claimed came up and no call started in it: a leaky bucket does not
   * bank slots, so the provider's capacity for that slot is gone. {@code reason}: {@code late}
   * (it could only be used more than half an interval late), {@code paused} (the provider's
   * Retry-After, or the lane closing), {@code empty} (nothing left to send: the queue was drained,
   * by a revocation for example), {@code dearer} (the event picked costs more than the slot
   * reserved) or {@code disabled} (a tenant's endpoint is disabled, or has its one probe out).
   */
  default void slotWasted(String provider, String reason) {}

  /**
   * A tenant's endpoint of {@code provider} was disabled after failing for its
   * {@code disableAfter} (or its probe failed); its events wait or are dead-lettered.
   */
  default void endpointDisabled(String provider) {}

  /** A disabled endpoint of {@code provider} answered its probe: it is called again. */
  default void endpointEnabled(String provider) {}

  DispatchListener NONE = new DispatchListener() {};
}
