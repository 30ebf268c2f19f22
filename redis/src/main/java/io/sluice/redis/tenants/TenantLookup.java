package io.sluice.redis.tenants;

/**
 * Where a gate finds a tenant's registry record, per event: never a blocking round trip per
 * event ({@link TenantWatcher} answers from its cache).
 */
@FunctionalInterface
public interface TenantLookup {
  /** No registry: every tenant is decided by the file. */
  TenantLookup NONE = tenant -> null;

  /**
   * The tenant's registry record, or null when it has none or it cannot be known now (the gate
   * decides such a tenant by the file: harmless for quotas). A user that must not mistake "cannot
   * be known" for "none" asks {@link #answer}.
   */
  TenantRecord registered(String tenant);

  /**
   * What is known of the tenant's record now: {@link Answer#unknown()} when the registry could not
   * be read in time (Redis slow or down, the tenant not kept); else its record, or none.
   */
  default Answer answer(String tenant) {
    return Answer.of(registered(tenant));
  }

  /**
   * A look-up's answer.
   *
   * @param known  whether the registry was read (or its answer kept): false when it did not answer
   * @param record the tenant's record; null when it has none, or when not {@code known}
   */
  record Answer(boolean known, TenantRecord record) {
    private static final Answer UNKNOWN = new Answer(false, null);

    /** The registry did not answer in time, and nothing is kept for the tenant. */
    public static Answer unknown() {
      return UNKNOWN;
    }

    /** The registry's answer: {@code record}, null when the tenant has none. */
    public static Answer of(TenantRecord record) {
      return new Answer(true, record);
    }
  }
}
