package io.sluice.schemas.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The rules a JSON Schema cannot state: settings that refer to each other by name, and order.
 *
 * <p>These are the mistakes that would otherwise surface far from their cause: a provider without
 * a quota for some tier would leave that tier's tenants with no bucket (dead-lettered at the gate
 * for no visible reason); a tenant in a missing tier would be an unknown tenant; a ladder out of
 * order would make the delay topic choice meaningless.
 */
final class ConfigChecks {
  private final List<Problem> problems = new ArrayList<>();

  List<Problem> check(SluiceConfig config) {
    String tierList = String.join(", ", new TreeSet<>(config.tiers().keySet()));
    String providerList = String.join(", ", new TreeSet<>(config.providers().keySet()));

    if (config.defaultTier() != null && !config.tiers().containsKey(config.defaultTier())) {
      notATier("defaultTier", config.defaultTier(), tierList);
    }
    for (Map.Entry<String, TenantConfig> tenant : config.tenants().entrySet()) {
      String path = Problem.join("tenants", tenant.getKey());
      String tier = tenant.getValue().tier();
      if (tier == null) {
        problems.add(new Problem(Problem.join(path, "tier"),
            "missing, and there is no defaultTier to fall back on"));
      } else if (!config.tiers().containsKey(tier)) {
        notATier(Problem.join(path, "tier"), tier, tierList);
      }
      for (String provider : new TreeSet<>(tenant.getValue().quotas().keySet())) {
        if (!config.providers().containsKey(provider)) {
          problems.add(new Problem(Problem.join(Problem.join(path, "quotas"), provider),
              "\"" + provider + "\" is not a configured provider (providers: " + providerList
                  + ")"));
        }
      }
    }
    for (Map.Entry<String, ProviderConfig> provider : config.providers().entrySet()) {
      String path = Problem.join("providers", provider.getKey());
      checkQuotas(Problem.join(path, "quotas"), provider.getValue(), config, tierList);
      positive(Problem.join(path, "timeout"), provider.getValue().timeout());
    }
    checkLadder(config.ladder());
    positive("gate.redisTimeout", config.gate().redisTimeout());
    positive("dispatcher.lookahead", config.dispatcher().lookahead());
    positive("dispatcher.backoffBase", config.dispatcher().backoffBase());
    if (config.dispatcher().backoffCap().compareTo(config.dispatcher().backoffBase()) < 0) {
      problems.add(new Problem("dispatcher.backoffCap", "expected at least dispatcher.backoffBase ("
          + Durations.format(config.dispatcher().backoffBase()) + "), got "
          + Durations.format(config.dispatcher().backoffCap())));
    }
    return problems;
  }

  /** Every tier has a bucket toward every provider, and every bucket belongs to a tier. */
  private void checkQuotas(String path, ProviderConfig provider, SluiceConfig config,
      String tierList) {
    for (String tier : new TreeSet<>(config.tiers().keySet())) {
      if (!provider.quotas().containsKey(tier)) {
        problems.add(new Problem(path, "no quota for tier \"" + tier + "\""));
      }
    }
    for (String tier : new TreeSet<>(provider.quotas().keySet())) {
      if (!config.tiers().containsKey(tier)) {
        notATier(Problem.join(path, tier), tier, tierList);
      }
    }
  }

  /** Strictly increasing, so each step is a distinct topic and a wait maps to one step. */
  private void checkLadder(List<Duration> ladder) {
    for (int i = 0; i < ladder.size(); i++) {
      Duration step = ladder.get(i);
      if (step.isZero()) {
        problems.add(new Problem(Problem.index("ladder", i), "a step must be longer than 0ms"));
      } else if (i > 0 && step.compareTo(ladder.get(i - 1)) <= 0) {
        problems.add(new Problem(Problem.index("ladder", i), "the ladder must be strictly "
            + "increasing, but " + Durations.format(step) + " follows "
            + Durations.format(ladder.get(i - 1))));
      }
    }
  }

  private void positive(String path, Duration duration) {
    if (duration.isZero() || duration.isNegative()) {
      problems.add(new Problem(path, "must be longer than 0ms, got " + Durations.format(duration)));
    }
  }

  private void notATier(String path, String tier, String tierList) {
    problems.add(new Problem(path,
        "\"" + tier + "\" is not a configured tier (tiers: " + tierList + ")"));
  }
}
