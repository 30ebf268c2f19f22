package io.sluice.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The whole configuration file (see {@code schemas/config.schema.json} and DESIGN.md). Immutable;
 * built only by {@link ConfigLoader}, which validates it and names the field of any error.
 *
 * @param defaultTier tier of tenants not listed; null means unlisted tenants are dead-lettered
 *                    with reason {@code unknown_tenant}
 */
public record SluiceConfig(
    KafkaConfig kafka,
    RedisConfig redis,
    List<Duration> ladder,
    int maxAttempts,
    Duration reservationHorizon,
    Map<String, TierConfig> tiers,
    String defaultTier,
    Map<String, ProviderConfig> providers,
    Map<String, TenantConfig> tenants,
    HttpConfig http,
    GateConfig gate,
    DispatcherConfig dispatcher,
    AdminConfig admin) {

  public SluiceConfig {
    admin = admin == null ? AdminConfig.NONE : admin;
    ladder = List.copyOf(ladder);
    tiers = Map.copyOf(tiers);
    providers = Map.copyOf(providers);
    tenants = tenants == null ? Map.of() : Map.copyOf(tenants);
  }

  /** The tenant's tier: its own entry, else the default tier, else empty (unknown tenant). */
  public Optional<String> tierOf(String tenant) {
    TenantConfig t = tenants.get(tenant);
    if (t != null) {
      return Optional.of(t.tier());
    }
    return Optional.ofNullable(defaultTier);
  }

  /** The tenant's quota toward a provider: a tenant override, else its tier's quota. */
  public Optional<Quota> quotaOf(String provider, String tenant) {
    ProviderConfig p = providers.get(provider);
    if (p == null) {
      return Optional.empty();
    }
    TenantConfig t = tenants.get(tenant);
    if (t != null && t.quotas().containsKey(provider)) {
      return Optional.of(t.quotas().get(provider));
    }
    return tierOf(tenant).map(p.quotas()::get);
  }

  /**
   * Shadow mode for the tenant's events toward the provider: when either the provider or the
   * tenant says so (neither can take the other out of shadow mode; a limit is enforced only where
   * nobody asked to watch it first).
   */
  public boolean shadowOf(String provider, String tenant) {
    ProviderConfig p = providers.get(provider);
    TenantConfig t = tenants.get(tenant);
    return (p != null && p.shadow()) || (t != null && t.shadow());
  }

  /** The tenant's budget across all providers, if it has one. */
  public Optional<Quota> overallOf(String tenant) {
    TenantConfig t = tenants.get(tenant);
    return Optional.ofNullable(t == null ? null : t.overall());
  }

  /**
   * The tenant's own endpoint toward a per-tenant provider ({@code endpoints: perTenant}); empty
   * when the tenant has none (its events toward that provider are dead-lettered
   * {@code no_endpoint}) or the provider has one URL for all.
   */
  public Optional<TenantEndpoint> endpointOf(String provider, String tenant) {
    TenantConfig t = tenants.get(tenant);
    return Optional.ofNullable(t == null ? null : t.endpoints().get(provider));
  }

  /** The tier-wide budget of the tenant's tier toward the provider, if the tier has one. */
  public Optional<Quota> tierBudgetOf(String provider, String tenant) {
    return tierOf(tenant).map(tiers::get).map(t -> t.budgets().get(provider));
  }
}
