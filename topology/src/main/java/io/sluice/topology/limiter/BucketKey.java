package io.sluice.topology.limiter;

/**
 * Names one bucket: a tenant's quota toward one provider.
 *
 * <p>The Redis key is {@code sluice:v1:{provider:tenant}:tb}: versioned, so a change of the stored
 * fields can roll out beside the old keys, and hash-tagged, so that in a Redis Cluster everything
 * about one bucket lives in one slot (a script may only touch keys of one slot). Tenant ids are
 * {@code [A-Za-z0-9._:-]} and provider names {@code [A-Za-z0-9._-]}: neither can contain a brace.
 */
public record BucketKey(String provider, String tenant) {
  public String redisKey() {
    return "sluice:v1:{" + provider + ":" + tenant + "}:tb";
  }
}
