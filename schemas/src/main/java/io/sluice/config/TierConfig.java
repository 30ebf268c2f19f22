package io.sluice.config;

import java.util.Map;

/**
 * @param weight  the tier's share of contended provider capacity (positive)
 * @param budgets tier-wide budgets by provider: one bucket toward that provider shared by every
 *                tenant of the tier, charged beside each tenant's own quota; never null
 */
public record TierConfig(double weight, Map<String, Quota> budgets) {
  public TierConfig {
    budgets = budgets == null ? Map.of() : Map.copyOf(budgets);
  }

  public TierConfig(double weight) {
    this(weight, Map.of());
  }
}
