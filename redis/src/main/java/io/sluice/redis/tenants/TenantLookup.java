package io.sluice.redis.tenants;

/**
 * Where a gate finds a tenant's registry record, per event: never a blocking round trip per
 * event ({@link TenantWatcher} answers from its cache).
 */
@FunctionalInterface
public interface TenantLookup {
  /** No registry: every tenant is decided by the file. */
  TenantLookup NONE = tenant -> null;

  /** The tenant's registry record, or null when it has none (or it cannot be known now). */
  TenantRecord registered(String tenant);
}
