package io.sluice.topology.limiter;

/**
 * What the gate asks of a bucket for one event.
 *
 * @param want   units it would like, &ge; need; the extra ones form a lease for later events
 * @param need   units the current event must have (its cost), &ge; 1
 * @param holder the event holds a ticket: it waited its turn, reserve without the horizon check
 */
public record AcquireRequest(int want, int need, boolean holder) {
  public AcquireRequest {
    if (need < 1 || want < need) {
      throw new IllegalArgumentException("need >= 1 and want >= need: want=" + want + " need=" + need);
    }
  }

  public static AcquireRequest single(int cost) {
    return new AcquireRequest(cost, cost, false);
  }
}
