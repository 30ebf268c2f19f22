package io.sluice.schemas.config;

import java.util.Map;

/**
 * @param tier   the tenant's tier (must name a configured tier)
 * @param quotas per-provider overrides of the tier's quota; never null
 */
public record TenantConfig(String tier, Map<String, Quota> quotas) {
  public TenantConfig {
    quotas = quotas == null ? Map.of() : Map.copyOf(quotas);
  }
}
