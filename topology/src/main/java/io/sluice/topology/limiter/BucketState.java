package io.sluice.topology.limiter;

/**
 * What Redis stores for one bucket (the hash fields of token_bucket.lua).
 *
 * @param level        tokens after the last update; negative when units are reserved ahead
 * @param updatedMicros time of the last update (microseconds since the epoch); never moves back
 * @param lineMicros   when the last place in the waiting line is served; 0 when there is no line
 */
public record BucketState(double level, long updatedMicros, double lineMicros) {
  /** The state of a bucket never seen (or expired): full, as of now. */
  public static BucketState full(BucketSpec spec, long nowMicros) {
    return new BucketState(spec.capacity(), nowMicros, 0);
  }
}
