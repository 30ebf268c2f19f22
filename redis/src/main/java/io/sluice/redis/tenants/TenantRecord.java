package io.sluice.redis.tenants;

import io.sluice.config.Quota;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import java.util.Map;
import java.util.Objects;

/**
 * A tenant as the registry holds it: what an operator may change while Sluice runs. It replaces
 * the tenant's tier, quotas and shadow flag from the YAML file as a whole (a provider the record
 * gives no quota for gets the record's tier's quota, not the file's tenant override); the file's
 * per-attribute {@code rules} and {@code overall} budget of the tenant still apply, as the registry
 * does not hold them.
 *
 * @param tier   a configured tier (checked when written, {@link TenantInput}; a record whose tier a
 *               later reload removed is ignored, {@link #effective})
 * @param quotas per-provider overrides of the tier's quota; never null (immutable, so that the
 *               entry {@link #effective} builds per event shares it instead of copying it)
 * @param shadow the tenant's events are decided and counted, never held back
 */
public record TenantRecord(String tier, Map<String, Quota> quotas, boolean shadow) {
  public TenantRecord {
    Objects.requireNonNull(tier, "tier");
    quotas = quotas == null ? Map.of() : Map.copyOf(quotas);
  }

  /**
   * The entry a tenant is decided by: {@code registered} over the file's own entry (keeping the
   * file's rules and overall budget), or the file's entry when nothing is registered or the
   * record names a tier {@code config} no longer has; null when neither has one (the default
   * tier applies).
   */
  public static TenantConfig effective(SluiceConfig config, String tenant, TenantRecord registered) {
    TenantConfig file = config.tenants().get(tenant);
    if (registered == null || !config.tiers().containsKey(registered.tier())) {
      return file;
    }
    return file == null
        ? new TenantConfig(registered.tier(), registered.quotas(), registered.shadow())
        : new TenantConfig(registered.tier(), registered.quotas(), registered.shadow(),
            file.overall(), file.rules());
  }

  /** The file's entry as a record (its rules and overall budget aside). */
  public static TenantRecord of(TenantConfig file) {
    return new TenantRecord(file.tier(), file.quotas(), file.shadow());
  }
}
