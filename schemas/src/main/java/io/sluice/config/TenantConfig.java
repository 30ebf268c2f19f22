package io.sluice.config;

import java.util.Map;

/**
 * @param tier    the tenant's tier (must name a configured tier)
 * @param quotas  per-provider overrides of the tier's quota; never null
 * @param shadow  this tenant's events toward every provider are decided and counted, never held
 *                back (shadow mode; a provider's own {@code shadow} puts all its tenants there too)
 * @param overall the tenant's budget across all providers, charged by every one of its events;
 *                null when none
 * @param rules   per-attribute rules by name (an expensive action per hour, say), each charged by
 *                the events it matches; never null
 * @param endpoints the tenant's own endpoint toward each per-tenant provider, by provider name
 *                  ({@code endpoints: perTenant}); never null
 */
public record TenantConfig(
    String tier, Map<String, Quota> quotas, boolean shadow, Quota overall, Map<String, QuotaRule> rules,
    Map<String, TenantEndpoint> endpoints) {
  public TenantConfig {
    quotas = quotas == null ? Map.of() : Map.copyOf(quotas);
    rules = rules == null ? Map.of() : Map.copyOf(rules);
    endpoints = endpoints == null ? Map.of() : Map.copyOf(endpoints);
  }

  /** A tenant with no endpoint of its own. */
  public TenantConfig(String tier, Map<String, Quota> quotas, boolean shadow, Quota overall,
      Map<String, QuotaRule> rules) {
    this(tier, quotas, shadow, overall, rules, Map.of());
  }

  /** A tenant with one bucket per provider (no tenant-wide budget, no per-attribute rule). */
  public TenantConfig(String tier, Map<String, Quota> quotas, boolean shadow) {
    this(tier, quotas, shadow, null, Map.of());
  }

  /** A tenant enforced as configured (not in shadow mode). */
  public TenantConfig(String tier, Map<String, Quota> quotas) {
    this(tier, quotas, ConfigDefaults.SHADOW);
  }
}
