package io.sluice.gate;

import io.sluice.config.RedisDownPolicy;
import io.sluice.schemas.event.Reason;

/**
 * What the gate reports as it decides, for metrics and tests. Labels are providers, tiers and
 * reasons, never tenant ids (a metric per tenant would grow without bound). Implementations must
 * be thread-safe: every stream thread of an instance reports to one listener.
 */
public interface GateListener {
  /** One event reached the limiter (a gate decision; amplification = decisions / unique events). */
  default void decided(String provider, String tier) {}

  /** One round trip to Redis was made for a decision (leases make this rarer than decisions). */
  default void redisCall(String provider, long nanos) {}

  default void admitted(String provider, String tier, int cost) {}

  default void deferred(String provider, String tier, Reason reason, boolean paid) {}

  default void dead(Reason reason) {}

  /** An event not called: its id was accepted within its provider's dedupWindow. */
  default void duplicate(String provider, String tier) {}

  /** Shadow mode: this event would have been deferred, and was let through. */
  default void shadowWouldDefer(String provider, String tier) {}

  /**
   * Shadow mode: this event would have been deferred by {@code waitMillis} (until its units were
   * due, or its turn in the line), and was let through. By default counted as above.
   */
  default void shadowWouldDefer(String provider, String tier, long waitMillis) {
    shadowWouldDefer(provider, tier);
  }

  /** Redis gave no decision and the provider's policy decided instead. */
  default void redisFallback(String provider, RedisDownPolicy policy) {}

  GateListener NONE = new GateListener() {};
}
