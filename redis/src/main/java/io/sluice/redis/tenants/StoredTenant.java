package io.sluice.redis.tenants;

import java.time.Instant;
import java.util.Objects;

/**
 * A registry record with who wrote it and when.
 *
 * @param id     the tenant
 * @param record what it says
 * @param by     who wrote it ({@code user@host} from the CLI, {@code admin-api@<address>} from the
 *               admin API); printable ASCII, at most {@value TenantCodec#MAX_WHO} characters
 * @param at     when, on Redis's clock; {@link Instant#EPOCH} when the stored value does not say
 */
public record StoredTenant(String id, TenantRecord record, String by, Instant at) {
  public StoredTenant {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(record, "record");
    by = TenantCodec.who(by);
    Objects.requireNonNull(at, "at");
  }
}
