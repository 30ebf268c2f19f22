package io.sluice.config;

import java.time.Duration;

/**
 * Whether a provider takes several events in one call ({@code batch:}), and how many. Off by
 * default: a provider without {@code batch} gets one call per event, as it always did.
 *
 * <p>A batch is one HTTP call whose body is a JSON array of its events' payloads, in the order
 * the lane's fair queue served them; it takes one slot of the provider's leak and counts as one
 * call in every call window, and as the sum of its events' costs in every cost window.
 *
 * @param maxEvents the most events in one call, from 1 to {@link #MAX_EVENTS}; 0: batching off
 * @param maxBytes  the most body bytes a batch grows to (the array's brackets and commas
 *                  counted); an event larger alone still goes, alone. From {@link #MIN_BYTES} to
 *                  {@link #MAX_BYTES}
 * @param maxWait   how long after the lane's previous call a batch with room left may wait for
 *                  more events; {@link Duration#ZERO} (the default): a due slot sends what is
 *                  queued. At most {@link #MAX_WAIT}
 */
public record BatchRule(int maxEvents, int maxBytes, Duration maxWait) {
  public static final int MAX_EVENTS = 1000;
  public static final int MIN_BYTES = 1024;
  public static final int MAX_BYTES = 16 * 1024 * 1024;
  public static final int DEFAULT_BYTES = 1024 * 1024;
  public static final Duration MAX_WAIT = Duration.ofSeconds(10);
  /** No batching: one call per event. */
  public static final BatchRule OFF = new BatchRule(0, DEFAULT_BYTES, Duration.ZERO);

  public BatchRule {
    maxWait = maxWait == null ? Duration.ZERO : maxWait;
    if (maxEvents < 0 || maxEvents > MAX_EVENTS) {
      throw new IllegalArgumentException("maxEvents from 1 to " + MAX_EVENTS + ", not " + maxEvents);
    }
    if (maxBytes < MIN_BYTES || maxBytes > MAX_BYTES) {
      throw new IllegalArgumentException("maxBytes from " + MIN_BYTES + " to " + MAX_BYTES
          + ", not " + maxBytes);
    }
    if (maxWait.isNegative() || maxWait.compareTo(MAX_WAIT) > 0) {
      throw new IllegalArgumentException("maxWait at most " + MAX_WAIT + ", not " + maxWait);
    }
  }

  /** Whether events go several to a call. */
  public boolean on() {
    return maxEvents > 0;
  }

  /** Calls needed for {@code queued} events: one per {@code maxEvents} (one each when off). */
  public int callsFor(int queued) {
    return on() ? (queued + maxEvents - 1) / maxEvents : queued;
  }
}
