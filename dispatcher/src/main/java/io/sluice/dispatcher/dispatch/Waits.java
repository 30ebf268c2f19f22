package io.sluice.dispatcher.dispatch;

import java.util.Map;

/**
 * What one provider's events wait for on this dispatcher now, for {@code status}: every wait has
 * a reason a person can see. Taken once a second on the consumer thread.
 *
 * @param queued         events queued in its lanes, waiting for their slots at its paced rate
 * @param inFlight       calls out now
 * @param heldByPause    events an operator's pause holds in memory (parked after a few seconds)
 * @param lanesHeld      lanes that may not call now: its {@code Retry-After}, or a tenant's
 *                       endpoint disabled until its probe
 * @param heldUntilMillis when the last of those holds ends (epoch ms), 0 if none
 * @param parked         events parked in Kafka and not due back yet, by reason
 *                       ({@code overflow}: a full buffer, at their turn; {@code parked}: a hold,
 *                       a disabled endpoint, a pause)
 * @param nextDueMillis  when the first parked event comes back (epoch ms), 0 if none
 * @param lastDueMillis  when the last one does, 0 if none
 */
public record Waits(int queued, int inFlight, int heldByPause, int lanesHeld,
    long heldUntilMillis, Map<String, Integer> parked, long nextDueMillis, long lastDueMillis) {}
