package io.sluice.gate;

import io.sluice.schemas.event.WorkEvent;

/**
 * An inbound event between the gate's processors: the parsed event for decisions, and the
 * original value bytes, which are what every sink writes (Sluice never rewrites a payload).
 *
 * @param tier the tier the tier step resolved
 */
record GateEvent(WorkEvent event, byte[] raw, String tier) {}
