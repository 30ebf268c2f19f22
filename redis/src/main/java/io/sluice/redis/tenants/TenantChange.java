package io.sluice.redis.tenants;

import java.time.Instant;

/**
 * One entry of a tenant's audit trail: a {@code set} ({@code after} non-null) or a
 * {@code delete} ({@code after} null).
 *
 * @param at     when, on Redis's clock
 * @param by     who
 * @param before the record before; null when there was none (a first {@code set})
 * @param after  the record after; null for a delete
 */
public record TenantChange(Instant at, String by, TenantRecord before, TenantRecord after) {
  public TenantChange {
    by = TenantCodec.who(by);
  }
}
