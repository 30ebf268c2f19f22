package io.sluice.redis.tenants;

import io.sluice.config.Quota;
import io.sluice.config.QuotaRule;
import java.util.Map;

/**
 * A tenant's budgets beside its per-provider quotas, as a registry record may hold them: its
 * budget across all providers and its per-attribute rules ({@code tenants.<id>.overall} and
 * {@code .rules} in the file). A record that holds them replaces the file's as a whole, as its
 * quotas do (a rule the record does not give is not charged, even if the file has it); a record
 * that does not ({@link TenantRecord#budgets} null) leaves the file's in force.
 *
 * @param overall the budget across all providers; null: none
 * @param rules   per-attribute rules by name; never null
 */
public record TenantBudgets(Quota overall, Map<String, QuotaRule> rules) {
  /** No overall budget, no rule. */
  public static final TenantBudgets NONE = new TenantBudgets(null, Map.of());

  public TenantBudgets {
    rules = rules == null ? Map.of() : Map.copyOf(rules);
  }
}
