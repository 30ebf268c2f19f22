package io.sluice.gate.limiter;

/**
 * The level of a bucket as the gate last heard it from Redis: {@code level} just after that
 * answer's charge (negative when units were reserved ahead: the bucket is in debt until
 * {@code -level / refill} seconds after the answer), received at {@code atNanos} on the gate's
 * monotonic clock.
 *
 * <p>It is what the {@code local} fallback starts from when Redis stops answering. A bucket's
 * events meet in one stream task (tenants are partitioned by key), so that task's last answer
 * is the whole bucket's last state, up to the units of its own lease, which it spends before it
 * ever asks. Starting full instead would pay twice for the time already sold as reservations:
 * the relay releases those when they fall due, outage or not.
 *
 * <p>A bucket with an old line (reservations sold before a raise, {@link Refill}) refills beside
 * it: {@code oldRate} less until {@code oldForNanos} after the answer (0: no old line).
 */
public record KnownLevel(double level, long atNanos, double oldRate, long oldForNanos) {
  public KnownLevel(double level, long atNanos) {
    this(level, atNanos, 0, 0);
  }

  /** What an answer received at {@code receivedNanos} says of the bucket after its charge. */
  public static KnownLevel after(Acquisition a, long receivedNanos) {
    long oldFor = a.oldEndMicros() > a.nowMicros() ? (a.oldEndMicros() - a.nowMicros()) * 1000 : 0;
    return new KnownLevel(a.levelBefore() - a.granted(), receivedNanos, oldFor == 0 ? 0 : a.oldRate(), oldFor);
  }

  /** How much longer the old line runs at {@code nowNanos} (0: over, or none). */
  public long oldLeftNanos(long nowNanos) {
    return oldForNanos == 0 ? 0 : Math.max(0, atNanos + oldForNanos - nowNanos);
  }

  /** The level at {@code nowNanos}: refilled since the answer (beside the old line), at most the capacity. */
  public double at(long nowNanos, BucketSpec spec) {
    long since = Math.max(0, nowNanos - atNanos);
    double refilled = oldForNanos == 0 ? since / 1e9 * spec.refillPerSecond()
        : new Refill(spec.refillPerSecond(), oldRate, oldForNanos / 1000).gain(0, since / 1000);
    return Math.min(spec.capacity(), level + refilled);
  }
}
