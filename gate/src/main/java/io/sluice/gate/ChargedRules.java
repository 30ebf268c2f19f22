package io.sluice.gate;

import io.sluice.config.QuotaRule;
import io.sluice.config.SluiceConfig;
import io.sluice.config.TenantConfig;
import io.sluice.schemas.event.WorkEvent;
import io.sluice.gate.limiter.BucketSpec;
import io.sluice.gate.limiter.RuleBucket;
import io.sluice.gate.limiter.RuleKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The quota rules one event is charged against, first its tenant's quota toward its provider, then
 * the tenant's overall budget, the per-attribute rules it matches (by name) and its tier's budget
 * toward the provider (last: on a standalone Redis only, see {@link RuleKeys}).
 *
 * <p>A tenant whose events toward the provider have only the first rule is a single-rule tenant
 * there: the gate charges them through {@code token_bucket.lua} (leases, reservations, its existing
 * key), and {@link #of} answers an empty list. Otherwise every one of its events toward the
 * provider goes through {@code quota_rules.lua}, all or none, with the rules it is charged
 * against, the first alone when it matches none of its tenant's per-attribute rules.
 *
 * <p>Invariant: a tenant's (provider, tenant) quota is one bucket. Which key holds it is decided by
 * the tenant's rules, never by the event: an event that matches no rule of a tenant that has rules
 * toward the provider is charged to the multi-rule key as the matching ones are. Deciding it per
 * event gave such a tenant two buckets of the full quota (the matching events' and the others'):
 * with a quota of 10 and a rule on {@code refunds}, 10 refunds and 10 charges at one instant were
 * all admitted (issue 34).
 */
final class ChargedRules {
  private ChargedRules() {}

  /**
   * The event's rules when its tenant has more than one toward its provider (a per-attribute rule
   * it may match, an overall budget, a tier budget), else an empty list (a single-rule tenant: the
   * common case builds nothing here, as it is on every event's path).
   */
  static List<RuleBucket> of(SluiceConfig config, WorkEvent event, String tier) {
    return of(config, config.tenants().get(event.tenant()), event, tier);
  }

  /** {@link #of(SluiceConfig, WorkEvent, String)} for a tenant whose entry is {@code t} (or null). */
  static List<RuleBucket> of(SluiceConfig config, TenantConfig t, WorkEvent event, String tier) {
    String provider = event.provider();
    String tenant = event.tenant();
    long horizon = config.reservationHorizon().toNanos() / 1000;
    List<RuleBucket> rules = new ArrayList<>(2);
    boolean ruleTowardProvider = false;
    config.overallOf(t).ifPresent(q -> rules.add(
        new RuleBucket("overall", RuleKeys.overall(tenant), new BucketSpec(q.capacity(), q.refill().perSecond(), horizon))));
    if (t != null && !t.rules().isEmpty()) {
      for (Map.Entry<String, QuotaRule> rule : new TreeMap<>(t.rules()).entrySet()) {
        String scope = rule.getValue().provider();
        ruleTowardProvider |= scope == null || scope.equals(provider);
        if (rule.getValue().matches(provider, event.path(), event.attributes())) {
          var q = rule.getValue().quota();
          rules.add(new RuleBucket("rule:" + rule.getKey(), RuleKeys.rule(tenant, rule.getKey()),
              new BucketSpec(q.capacity(), q.refill().perSecond(), horizon)));
        }
      }
    }
    // The budget of the tier the event was resolved to (a reload may move the tenant meanwhile):
    // the key and its terms must be the same tier's.
    Optional.ofNullable(config.tiers().get(tier)).map(tc -> tc.budgets().get(provider))
        .ifPresent(q -> rules.add(
        new RuleBucket("tier", RuleKeys.tierBudget(tier, provider), new BucketSpec(q.capacity(), q.refill().perSecond(), horizon))));
    if (rules.isEmpty() && !ruleTowardProvider) {
      return List.of();
    }
    rules.add(0, new RuleBucket("provider", RuleKeys.provider(tenant, provider),
        BucketSpec.of(config.quotaOf(provider, t).orElseThrow(), config.reservationHorizon())));
    return rules;
  }
}
