package io.sluice.topology.limiter;

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
 */
public record KnownLevel(double level, long atNanos) {
  /** The level at {@code nowNanos}: refilled since the answer, at most the capacity. */
  public double at(long nowNanos, BucketSpec spec) {
    double refilled = Math.max(0, nowNanos - atNanos) / 1e9 * spec.refillPerSecond();
    return Math.min(spec.capacity(), level + refilled);
  }
}
