package io.sluice.schemas.config;

import java.util.Map;

/**
 * @param tier   the tenant's tier (must name a configured tier)
 * @param quotas per-provider overrides of the tier's quota; never null
 * @param shadow this tenant's events toward every provider are decided and counted, never held
 *               back (shadow mode; a provider's own {@code shadow} puts all its tenants there too)
 */
public record TenantConfig(String tier, Map<String, Quota> quotas, boolean shadow) {
  public TenantConfig {
    quotas = quotas == null ? Map.of() : Map.copyOf(quotas);
  }

  /** A tenant enforced as configured (not in shadow mode). */
  public TenantConfig(String tier, Map<String, Quota> quotas) {
    this(tier, quotas, ConfigDefaults.SHADOW);
  }
}
