package io.sluice.gate;

import io.sluice.config.ProviderConfig;
import io.sluice.config.Quota;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import io.sluice.config.TierConfig;
import io.sluice.gate.limiter.BucketSpec;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What the limit step needs to know about an event's bucket from one configuration: the bucket's
 * shape, whether it is in shadow mode, and whether the event may have quota rules beside its
 * (provider, tenant) quota. One instance per configuration snapshot (a reload brings a new one).
 *
 * <p>Why: the answer is the same for every event of a tenant the configuration does not list
 * (nearly all of them, usually) toward a provider in a tier, yet working it out takes a dozen
 * map lookups and a few objects, on every event. So it is worked out once per (provider, tier) for
 * unlisted tenants, and kept. A listed tenant (its own tier, quotas, shadow flag, rules) is worked
 * out each time, exactly as the configuration's own {@code quotaOf} and {@code shadowOf} do.
 * Not thread-safe: one per stream task.
 */
final class LimitTerms {
  /**
   * @param spec         the (provider, tenant) bucket
   * @param shadow       the provider's or the tenant's shadow mode
   * @param mayHaveRules the event may have more rules than its (provider, tenant) quota: the
   *                     tenant is listed (its own budget or rules) or its tier has a budget toward
   *                     the provider; when false the event is single-rule for certain
   */
  record Terms(BucketSpec spec, boolean shadow, boolean mayHaveRules) {}

  private final SluiceConfig config;
  /** provider → tier resolved for the event → the terms of an unlisted tenant; null: no quota. */
  private final Map<String, Map<String, Optional<Terms>>> unlisted = new HashMap<>();

  LimitTerms(SluiceConfig config) {
    this.config = config;
  }

  SluiceConfig config() {
    return config;
  }

  /**
   * The terms of {@code tenant}'s bucket toward {@code provider}, for an event resolved to
   * {@code tier}; null when the tenant has no quota there (no longer configured and no default
   * tier).
   */
  Terms of(String provider, String tenant, String tier) {
    return of(provider, config.tenants().get(tenant), tier);
  }

  /**
   * {@link #of(String, String, String)} for a tenant whose entry is {@code entry}: the file's, or
   * the tenant registry's over it; null when it has neither.
   */
  Terms of(String provider, TenantConfig entry, String tier) {
    if (entry != null) {
      return listed(provider, entry);
    }
    return unlisted.computeIfAbsent(provider, p -> new HashMap<>())
        .computeIfAbsent(tier, t -> Optional.ofNullable(unlisted(provider, t)))
        .orElse(null);
  }

  private Terms listed(String provider, TenantConfig entry) {
    Optional<Quota> quota = config.quotaOf(provider, entry);
    return quota.map(q -> new Terms(BucketSpec.of(q, config.reservationHorizon()),
        config.shadowOf(provider, entry), true)).orElse(null);
  }

  /** An unlisted tenant: the default tier's quota, the provider's shadow flag, the tier's budget. */
  private Terms unlisted(String provider, String tier) {
    Optional<Quota> quota = config.quotaOf(provider, (TenantConfig) null);
    if (quota.isEmpty()) {
      return null;
    }
    ProviderConfig p = config.providers().get(provider);
    TierConfig t = config.tiers().get(tier);
    boolean budget = t != null && t.budgets().containsKey(provider);
    return new Terms(BucketSpec.of(quota.get(), config.reservationHorizon()), p != null && p.shadow(), budget);
  }
}
