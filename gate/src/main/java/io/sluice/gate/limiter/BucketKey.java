package io.sluice.gate.limiter;

import java.util.Objects;

/**
 * Names one bucket: a tenant's quota toward one provider.
 *
 * <p>The Redis key is {@code sluice:v1:{provider:tenant}:tb}: versioned, so a change of the stored
 * fields can roll out beside the old keys, and hash-tagged, so that in a Redis Cluster everything
 * about one bucket lives in one slot (a script may only touch keys of one slot). Tenant ids are
 * {@code [A-Za-z0-9._:-]} and provider names {@code [A-Za-z0-9._-]}: neither can contain a brace.
 */
public record BucketKey(String provider, String tenant) {
  public BucketKey {
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(tenant, "tenant");
  }

  /*
   * Written out rather than the record's generated ones (a chain of method handles): every event
   * looks its bucket up in the stream task's map with a key built from the strings it was just
   * parsed into, and the generated equals stood out in the gate's profile. Tenant first: keys of
   * one task nearly always share their provider.
   */
  @Override
  public boolean equals(Object o) {
    return this == o || o instanceof BucketKey k && tenant.equals(k.tenant) && provider.equals(k.provider);
  }

  @Override
  public int hashCode() {
    return 31 * provider.hashCode() + tenant.hashCode();
  }

  public String redisKey() {
    return "sluice:v1:{" + provider + ":" + tenant + "}:tb";
  }

  /**
   * The key remembering the first record of event id {@code id} of this tenant toward this
   * provider, for the provider's {@code dedupWindow} ({@code lua/dedup.lua}): in the bucket's slot.
   * An id may hold any printable ASCII, braces too: after the tag, they change no slot.
   */
  public String seenKey(String id) {
    return "sluice:v1:{" + provider + ":" + tenant + "}:seen:" + id;
  }
}
