package io.sluice.dispatcher.dispatch.lane;

/**
 * A slot claimed from the leak: {@code slotMicros} on the leak's clock, due locally at
 * {@code dueNanos}; {@code claimedAtMicros} is when the leak granted it, {@code intervalNanos} the
 * spacing of its claim. {@code maxCost}: the cost it reserved (no event dearer may use it;
 * {@code Long.MAX_VALUE} when cost is not counted); {@code lease}: the concurrency lease it holds,
 * or null.
 */
record Slot(long slotMicros, long claimedAtMicros, long dueNanos, long intervalNanos,
    long maxCost, String lease) {
  /** The slot reserved more than {@code cost}: the rest is given back before the call starts. */
  boolean reservedMoreThan(long cost) {
    return maxCost != Long.MAX_VALUE && cost < maxCost;
  }
}
