package io.sluice.topology.limiter;

import java.util.function.Consumer;

/**
 * A circuit breaker in front of Redis, so that a Redis outage costs one timeout per probe instead
 * of one per event. Closed: calls go through. The first failure opens it: calls are refused (the
 * provider's onRedisDown policy decides) until {@code retryAt}; then one call goes through as a
 * probe (half-open). A successful probe closes it; a failed one reopens it with the wait doubled,
 * up to {@code maxBackoffMillis}.
 *
 * <p>Time is passed in. Transitions are reported to a listener exactly once each, so logs and
 * metrics see "Redis down" and "Redis back", never a line per event. Thread-safe: one circuit is
 * shared by every stream thread of an instance.
 */
public final class RedisCircuit {
  public enum State { CLOSED, OPEN, HALF_OPEN }

  private final long initialBackoffMillis;
  private final long maxBackoffMillis;
  private final Consumer<State> onTransition;
  private State state = State.CLOSED;
  private long retryAtMillis;
  private long backoffMillis;

  public RedisCircuit(long initialBackoffMillis, long maxBackoffMillis, Consumer<State> onTransition) {
    this.initialBackoffMillis = initialBackoffMillis;
    this.maxBackoffMillis = maxBackoffMillis;
    this.onTransition = onTransition;
    this.backoffMillis = initialBackoffMillis;
  }

  /** True when a call may go to Redis now (closed, or this caller is the half-open probe). */
  public synchronized boolean allow(long nowMillis) {
    switch (state) {
      case CLOSED:
        return true;
      case OPEN:
        if (nowMillis >= retryAtMillis) {
          move(State.HALF_OPEN);
          return true;
        }
        return false;
      default:
        return false;
    }
  }

  public synchronized void onSuccess() {
    backoffMillis = initialBackoffMillis;
    if (state != State.CLOSED) {
      move(State.CLOSED);
    }
  }

  public synchronized void onFailure(long nowMillis) {
    if (state == State.HALF_OPEN) {
      backoffMillis = Math.min(maxBackoffMillis, backoffMillis * 2);
    }
    retryAtMillis = nowMillis + backoffMillis;
    if (state != State.OPEN) {
      move(State.OPEN);
    }
  }

  public synchronized State state() {
    return state;
  }

  private void move(State next) {
    state = next;
    onTransition.accept(next);
  }
}
