package io.sluice.topology.limiter;

import java.util.List;

/**
 * What Redis stores for one bucket (the hash fields of token_bucket.lua).
 *
 * @param level        tokens after the last update; negative when units are reserved ahead
 * @param updatedMicros time of the last update (microseconds since the epoch); never moves back
 * @param lineMicros   when the last place in the waiting line is served; 0 when there is no line
 * @param lastLeaseId  the id of the last lease granted (0: none yet)
 * @param leases       the leases not yet ended, in the order they were granted
 */
public record BucketState(double level, long updatedMicros, double lineMicros, long lastLeaseId, List<HeldLease> leases) {
  public BucketState {
    leases = List.copyOf(leases);
  }

  /** A lease the bucket holds: {@code units} beyond their asker's need, until {@code deadlineMicros}. */
  public record HeldLease(long id, long deadlineMicros, int units) {}

  /** The state of a bucket never seen (or expired): full, as of now, holding no lease. */
  public static BucketState full(BucketSpec spec, long nowMicros) {
    return new BucketState(spec.capacity(), nowMicros, 0, 0, List.of());
  }

  /** Units in leases not yet ended: the bucket refills only up to capacity minus these. */
  public int held() {
    return leases.stream().mapToInt(HeldLease::units).sum();
  }
}
