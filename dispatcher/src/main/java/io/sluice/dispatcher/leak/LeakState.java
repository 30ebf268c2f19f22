package io.sluice.dispatcher.leak;

/**
 * What a provider's leak remembers between decisions: the same five fields the Redis hash holds
 * (see {@code lua/leaky_bucket.lua}). Every instant is on the bucket's clock, in microseconds;
 * {@link #NEVER} stands for a field the hash does not have.
 *
 * @param lastSlotMicros    the latest slot ever granted (the next one is at least one interval later)
 * @param cutFactor         the rate factor right after the last cut (1 before any cut)
 * @param cutAtMicros       when the last cut happened; the factor climbs back from there
 * @param pausedUntilMicros no slot starts before this (the latest Retry-After heard)
 * @param clockMicros       the latest time the bucket has seen: its clock never goes back
 */
record LeakState(
    long lastSlotMicros,
    double cutFactor,
    long cutAtMicros,
    long pausedUntilMicros,
    long clockMicros) {

  /** An absent field, and the clock of a bucket that has seen nothing. */
  public static final long NEVER = Long.MIN_VALUE;

  /** A provider never claimed from nor throttled: a missing Redis key reads as this. */
  public static final LeakState EMPTY = new LeakState(NEVER, 1.0, NEVER, NEVER, NEVER);
}
