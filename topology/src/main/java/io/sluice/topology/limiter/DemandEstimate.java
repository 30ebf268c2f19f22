package io.sluice.topology.limiter;

/**
 * A tenant's recent demand at this instance, in cost units per second, as an exponentially decayed
 * count: each event adds {@code cost / tau}, and the sum decays by {@code exp(-dt / tau)}. With a
 * steady arrival rate {@code λ} it settles at {@code λ}; when the tenant stops it fades within a
 * few {@code tau}. The lease size follows it: a busy tenant takes enough units per Redis call to
 * cover {@code leaseTarget} of its demand, a quiet one takes just what it needs (so a quiet tenant
 * never strands units it will not use).
 */
public final class DemandEstimate {
  private static final double TAU_SECONDS = 1.0;
  private double perSecond;
  private long lastNanos;
  private boolean seen;

  public void record(int cost, long nowNanos) {
    if (seen) {
      double dt = Math.max(0, nowNanos - lastNanos) / 1e9;
      perSecond *= Math.exp(-dt / TAU_SECONDS);
    }
    perSecond += cost / TAU_SECONDS;
    lastNanos = nowNanos;
    seen = true;
  }

  public double perSecond() {
    return perSecond;
  }

  /**
   * Units to ask for beyond the current event's need: the demand expected within {@code
   * targetSeconds}, at most {@code maxExtra}.
   */
  public int extraUnits(double targetSeconds, int maxExtra) {
    double expected = perSecond * targetSeconds;
    return (int) Math.min(maxExtra, Math.floor(expected));
  }
}
