package io.sluice.redis.tenants;

import io.sluice.config.Quota;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import io.sluice.config.TenantEndpoint;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A tenant as the registry holds it: what an operator may change while Sluice runs. It replaces
 * the tenant's tier, quotas and shadow flag from the YAML file as a whole (a provider the record
 * gives no quota for gets the record's tier's quota, not the file's tenant override), and so do its
 * {@code overall} budget and per-attribute {@code rules} when it holds them ({@link TenantBudgets};
 * a record that does not hold them leaves the file's in force). Its endpoints are laid over the
 * file's one provider at a time ({@link #endpointOf}): a provider the record gives no endpoint for
 * keeps the file's.
 *
 * @param tier      a configured tier (checked when written, {@link TenantInput}; a record whose
 *                  tier a later reload removed is ignored, {@link #effective})
 * @param quotas    per-provider overrides of the tier's quota; never null (immutable, so that the
 *                  entry {@link #effective} builds per event shares it instead of copying it)
 * @param shadow    the tenant's events are decided and counted, never held back
 * @param endpoints the tenant's own endpoint toward per-tenant providers, by provider, set in the
 *                  registry ({@link EndpointInput}); never null
 * @param budgets   the tenant's overall budget and per-attribute rules, replacing the file's;
 *                  null when the record does not hold them (the file's apply)
 */
public record TenantRecord(String tier, Map<String, Quota> quotas, boolean shadow,
    Map<String, TenantEndpoint> endpoints, TenantBudgets budgets) {
  public TenantRecord {
    Objects.requireNonNull(tier, "tier");
    quotas = quotas == null ? Map.of() : Map.copyOf(quotas);
    endpoints = endpoints == null ? Map.of() : Map.copyOf(endpoints);
  }

  /** A record with no endpoint of its own, leaving the file's budgets in force. */
  public TenantRecord(String tier, Map<String, Quota> quotas, boolean shadow) {
    this(tier, quotas, shadow, Map.of());
  }

  /** A record leaving the file's budgets in force. */
  public TenantRecord(String tier, Map<String, Quota> quotas, boolean shadow,
      Map<String, TenantEndpoint> endpoints) {
    this(tier, quotas, shadow, endpoints, null);
  }

  /**
   * The entry a tenant is decided by: {@code registered} over the file's own entry (keeping the
   * file's rules and overall budget unless the record holds its own), or the file's entry when
   * nothing is registered or the record names a tier {@code config} no longer has; null when
   * neither has one (the default tier applies).
   */
  public static TenantConfig effective(SluiceConfig config, String tenant, TenantRecord registered) {
    TenantConfig file = config.tenants().get(tenant);
    if (!inForce(config, registered)) {
      return file;
    }
    TenantBudgets budgets = registered.budgets();
    if (budgets != null) {
      return new TenantConfig(registered.tier(), registered.quotas(), registered.shadow(),
          budgets.overall(), budgets.rules());
    }
    return file == null
        ? new TenantConfig(registered.tier(), registered.quotas(), registered.shadow())
        : new TenantConfig(registered.tier(), registered.quotas(), registered.shadow(),
            file.overall(), file.rules());
  }

  /**
   * Where the tenant's calls toward the per-tenant provider {@code provider} go: the endpoint
   * {@code registered} gives it, if the record is in force; else the file's
   * ({@link SluiceConfig#endpointOf}); empty when neither has one, and empty too when the
   * record's endpoint no longer passes the configuration's checks ({@link #refusedEndpoint}: a
   * reload may have narrowed {@code allowedHosts}, and what is read from Redis is hostile). Not
   * the file's then: the operator replaced that destination.
   */
  public static Optional<TenantEndpoint> endpointOf(SluiceConfig config, String provider,
      String tenant, TenantRecord registered) {
    if (inForce(config, registered)) {
      TenantEndpoint own = registered.endpoints().get(provider);
      if (own != null) {
        return EndpointInput.refusal(config, provider, own).isEmpty() ? Optional.of(own)
            : Optional.empty();
      }
    }
    return config.endpointOf(provider, tenant);
  }

  /**
   * Why the endpoint {@code registered} gives toward {@code provider} fails {@code config}'s
   * checks ({@link EndpointInput#refusal}, which never quotes a URL's query); empty when the
   * record is not in force, gives none, or gives one that passes.
   */
  public static Optional<String> refusedEndpoint(SluiceConfig config, String provider,
      TenantRecord registered) {
    if (!inForce(config, registered) || !registered.endpoints().containsKey(provider)) {
      return Optional.empty();
    }
    return EndpointInput.refusal(config, provider, registered.endpoints().get(provider));
  }

  /** Whether {@code registered} decides its tenant: there is one, and its tier is configured. */
  private static boolean inForce(SluiceConfig config, TenantRecord registered) {
    return registered != null && config.tiers().containsKey(registered.tier());
  }

  /**
   * The file's entry as a record: its tier, quotas, shadow flag, and its overall budget and rules
   * if it has either. Not its endpoints: those stay the file's, under whatever the registry sets.
   */
  public static TenantRecord of(TenantConfig file) {
    boolean budgets = file.overall() != null || !file.rules().isEmpty();
    return new TenantRecord(file.tier(), file.quotas(), file.shadow(), Map.of(),
        budgets ? new TenantBudgets(file.overall(), file.rules()) : null);
  }

  /** This record with {@code next} as its overall budget and rules (null: the file's). */
  public TenantRecord withBudgets(TenantBudgets next) {
    return new TenantRecord(tier, quotas, shadow, endpoints, next);
  }

    /** This record with {@code next} as its endpoints. */
  public TenantRecord withEndpoints(Map<String, TenantEndpoint> next) {
    return new TenantRecord(tier, quotas, shadow, next, budgets);
  }
}
