package io.sluice.gate.limiter;

/**
 * A tenant's recent demand at this instance, in cost units per second, as an exponentially decayed
 * count: each event adds {@code cost / tau}, and the sum decays by {@code exp(-dt / tau)}. With a
 * steady arrival rate {@code λ} it settles at {@code λ}; when the tenant stops it fades within a
 * few {@code tau}. The lease size follows it: a busy tenant takes enough units per Redis call to
 * cover {@code leaseTarget} of its demand, a quiet one takes just what it needs (so a quiet tenant
 * never strands units it will not use).
 *
 * <h2>A tenant just seen: the rate since its first event</h2>
 *
 * Started from nothing, the decayed count is low by a factor {@code 1 - exp(-t / tau)} for the
 * first {@code tau} after a tenant's first event (t since then): a tenant at 100 events/s reads
 * 2/s after its second event and reaches half its rate only after 0.7 s, so its leases grow a
 * unit or two per call and it costs Redis about ten calls before one lease covers a second of its
 * events. {@link #rateSinceFirstSeen} divides that bias out: the decayed count of the events after
 * the first, over the decayed time since it ({@code tau (1 - exp(-t / tau))}, never less than
 * {@link #SHORTEST_SPAN_SECONDS}); two events 10 ms apart read 100/s. It is used to size
 * renewals only ({@link GateLimiter}), which take units the bucket holds and nothing reserved
 * ahead: an estimate that proves too high strands held units that go back with the tenant's next
 * request, or at worst are lost with the lease (stricter, never looser), while no reservation
 * falls due unused. After a few {@code tau} the two readings agree.
 */
public final class DemandEstimate {
  private static final double TAU_SECONDS = 1.0;
  /**
   * The shortest time since the first event that {@link #rateSinceFirstSeen} divides by: events
   * closer together than this are read as a rate of at most their count over it, not an
   * unbounded one.
   */
  static final double SHORTEST_SPAN_SECONDS = 0.001;
  private double perSecond;
  /** As {@link #perSecond}, without the first event. */
  private double laterPerSecond;
  private long firstNanos;
  private long lastNanos;
  private boolean seen;

  public void record(int cost, long nowNanos) {
    if (!seen) {
      perSecond = cost / TAU_SECONDS;
      firstNanos = nowNanos;
      lastNanos = nowNanos;
      seen = true;
      return;
    }
    double dt = Math.max(0, nowNanos - lastNanos) / 1e9;
    double decay = Math.exp(-dt / TAU_SECONDS);
    perSecond = perSecond * decay + cost / TAU_SECONDS;
    laterPerSecond = laterPerSecond * decay + cost / TAU_SECONDS;
    lastNanos = nowNanos;
  }

  public double perSecond() {
    return perSecond;
  }

  /**
   * The demand measured since the tenant's first event, without the decayed count's start-up
   * bias (see the class comment), as of the last event; {@link #perSecond} while there has been
   * only one.
   */
  public double rateSinceFirstSeen() {
    if (laterPerSecond == 0) {
      return perSecond;
    }
    double sinceFirst = Math.max(0, lastNanos - firstNanos) / 1e9;
    double span = TAU_SECONDS * -Math.expm1(-sinceFirst / TAU_SECONDS);
    return laterPerSecond * TAU_SECONDS / Math.max(SHORTEST_SPAN_SECONDS, span);
  }

  /**
   * Units to ask for beyond the current event's need: the demand expected within {@code
   * targetSeconds}, at most {@code maxExtra}.
   */
  public int extraUnits(double targetSeconds, int maxExtra) {
    return extra(perSecond, targetSeconds, maxExtra);
  }

  /** {@link #extraUnits} at {@link #rateSinceFirstSeen}: for a renewal, which reserves nothing. */
  public int extraUnitsSinceFirstSeen(double targetSeconds, int maxExtra) {
    return extra(rateSinceFirstSeen(), targetSeconds, maxExtra);
  }

  private static int extra(double perSecond, double targetSeconds, int maxExtra) {
    return (int) Math.min(maxExtra, Math.floor(perSecond * targetSeconds));
  }
}
