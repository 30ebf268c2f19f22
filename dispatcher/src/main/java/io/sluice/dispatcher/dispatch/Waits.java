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
 * @param tiers          what is queued per tier ({@link TierWait}); tiers with nothing queued
 *                       left out
 * @param oldestByTenant when each tenant's oldest queued event was first seen (epoch ms), for
 *                       the {@link Backlogs#MAX_TENANTS} tenants whose oldest is oldest
 * @param tenantsWaiting how many tenants have events queued (more than listed when the list is
 *                       full)
 * @param callsWait      why no call of this instance starts now, whatever the provider (its
 *                       settlements unacknowledged by Kafka: the broker away, {@code WriteStall});
 *                       null while calls go
 */
public record Waits(int queued, int inFlight, int heldByPause, int lanesHeld,
    long heldUntilMillis, Map<String, Integer> parked, long nextDueMillis, long lastDueMillis,
    Map<String, TierWait> tiers, Map<String, Long> oldestByTenant, int tenantsWaiting,
    String callsWait) {

  /** A document of an older instance reads with no tiers and no tenants. */
  public Waits {
    parked = parked == null ? Map.of() : parked;
    tiers = tiers == null ? Map.of() : tiers;
    oldestByTenant = oldestByTenant == null ? Map.of() : oldestByTenant;
  }

  /** Waits of an instance whose calls go. */
  public Waits(int queued, int inFlight, int heldByPause, int lanesHeld, long heldUntilMillis,
      Map<String, Integer> parked, long nextDueMillis, long lastDueMillis,
      Map<String, TierWait> tiers, Map<String, Long> oldestByTenant, int tenantsWaiting) {
    this(queued, inFlight, heldByPause, lanesHeld, heldUntilMillis, parked, nextDueMillis,
        lastDueMillis, tiers, oldestByTenant, tenantsWaiting, null);
  }

  /** Waits with no backlog by tier or tenant told. */
  public Waits(int queued, int inFlight, int heldByPause, int lanesHeld, long heldUntilMillis,
      Map<String, Integer> parked, long nextDueMillis, long lastDueMillis) {
    this(queued, inFlight, heldByPause, lanesHeld, heldUntilMillis, parked, nextDueMillis,
        lastDueMillis, Map.of(), Map.of(), 0);
  }

  /**
   * One tier's queued events at a provider on this instance.
   *
   * @param queuedCost         their cost
   * @param oldestFirstSeenMillis when the oldest of them was first seen (epoch ms), 0 if unknown
   * @param drainMillis        in how long they are all served at the lanes' pace and weights
   *                           ({@link io.sluice.dispatcher.fair.TierDrain}), the slowest lane's;
   *                           -1 when a lane cannot tell (it cannot call now)
   */
  public record TierWait(long queuedCost, long oldestFirstSeenMillis, long drainMillis) {}
}
