package io.sluice.gate.limiter;

/**
 * The Redis keys of the multi-rule buckets ({@code quota_rules.lua}).
 *
 * <p>Every rule that belongs to one tenant is hash-tagged on the tenant, {@code {t:<tenant>}}, so
 * that one event's rules share a Redis Cluster slot and one script can charge them all or none:
 * <ul>
 *   <li>{@code sluice:v1:{t:<tenant>}:p:<provider>}: the tenant's quota toward the provider;
 *   <li>{@code sluice:v1:{t:<tenant>}:all}: the tenant across all providers;
 *   <li>{@code sluice:v1:{t:<tenant>}:r:<rule>}: a per-attribute rule.
 * </ul>
 * The one rule that cannot share the slot is a tier-wide budget,
 * {@code sluice:v1:{tier:<tier>:<provider>}:budget}: one bucket for many tenants. It is accepted
 * only with a standalone Redis (ConfigChecks refuses it with a cluster), where a script may touch
 * any key.
 *
 * <p>A tenant whose events toward a provider have only the (provider, tenant) rule keeps the
 * single-rule key {@link BucketKey#redisKey()} and its script (leases, reservations): a running
 * deployment keeps its buckets on upgrade. The multi-rule (provider, tenant) bucket is a new key,
 * so adding a second rule starts that bucket full once (see the README).
 */
public final class RuleKeys {
  private RuleKeys() {}

  public static String provider(String tenant, String provider) {
    return "sluice:v1:{t:" + tenant + "}:p:" + provider;
  }

  public static String overall(String tenant) {
    return "sluice:v1:{t:" + tenant + "}:all";
  }

  public static String rule(String tenant, String rule) {
    return "sluice:v1:{t:" + tenant + "}:r:" + rule;
  }

  public static String tierBudget(String tier, String provider) {
    return "sluice:v1:{tier:" + tier + ":" + provider + "}:budget";
  }
}
