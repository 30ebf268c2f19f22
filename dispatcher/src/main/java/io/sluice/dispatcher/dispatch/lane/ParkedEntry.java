package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.dispatch.DispatchEntry;

/**
 * An entry a lane took out of its queue to wait in Kafka for its turn, and how long: the lane
 * may not call for a while, and the entry does not wait in memory.
 */
public record ParkedEntry(DispatchEntry entry, long waitNanos) {}
