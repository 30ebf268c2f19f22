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
    AdminConfig admin,
    LoggingConfig logging,
    SealingKeys secrets,
    TracingConfig tracing) {

  public SluiceConfig {
    secrets = secrets == null ? SealingKeys.NONE : secrets;
    admin = admin == null ? AdminConfig.NONE : admin;
    logging = logging == null ? LoggingConfig.NONE : logging;
    tracing = tracing == null ? TracingConfig.OFF : tracing;
    ladder = List.copyOf(ladder);
    tiers = Map.copyOf(tiers);
    providers = Map.copyOf(providers);
    tenants = tenants == null ? Map.of() : Map.copyOf(tenants);
  }

  /** The tenant's tier: its own entry, else the default tier, else empty (unknown tenant). */
  public Optional<String> tierOf(String tenant) {
    return tierOf(tenants.get(tenant));
  }

  /**
   * The tier of a tenant whose entry is {@code entry} (this file's, or one that overrides it at
   * run time: the tenant registry's), or null when it has none: the default tier then.
   */
  public Optional<String> tierOf(TenantConfig entry) {
    return entry != null ? Optional.of(entry.tier()) : Optional.ofNullable(defaultTier);
  }

  /** The tenant's quota toward a provider: a tenant override, else its tier's quota. */
  public Optional<Quota> quotaOf(String provider, String tenant) {
    return quotaOf(provider, tenants.get(tenant));
  }

  /** {@link #quotaOf(String, String)} for a tenant whose entry is {@code entry} (or null). */
  public Optional<Quota> quotaOf(String provider, TenantConfig entry) {
    ProviderConfig p = providers.get(provider);
    if (p == null) {
      return Optional.empty();
    }
    if (entry != null && entry.quotas().containsKey(provider)) {
      return Optional.of(entry.quotas().get(provider));
    }
    return tierOf(entry).map(p.quotas()::get);
  }

  /**
   * Shadow mode for the tenant's events toward the provider: when either the provider or the
   * tenant says so (neither can take the other out of shadow mode; a limit is enforced only where
   * nobody asked to watch it first).
   */
  public boolean shadowOf(String provider, String tenant) {
    return shadowOf(provider, tenants.get(tenant));
  }

  /** {@link #shadowOf(String, String)} for a tenant whose entry is {@code entry} (or null). */
  public boolean shadowOf(String provider, TenantConfig entry) {
    ProviderConfig p = providers.get(provider);
    return (p != null && p.shadow()) || (entry != null && entry.shadow());
  }

  /** The tenant's budget across all providers, if it has one. */
  public Optional<Quota> overallOf(String tenant) {
    return overallOf(tenants.get(tenant));
  }

  /** {@link #overallOf(String)} for a tenant whose entry is {@code entry} (or null). */
  public Optional<Quota> overallOf(TenantConfig entry) {
    return Optional.ofNullable(entry == null ? null : entry.overall());
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
