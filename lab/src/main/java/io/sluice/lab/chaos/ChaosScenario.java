package io.sluice.lab.chaos;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The configuration a chaos run gives every role: three providers, one per {@code onRedisDown}
 * policy, each with a leak rate of 0.96 of its strict limit, and a fourth, {@link #HOOKS}, with an
 * endpoint per tenant; nine tenants in three tiers; short retry waits and a short ladder, so that
 * the pipeline settles within minutes after the faults.
 *
 * <p>Isolation under the faults (issue 39): one tenant's endpoint is dead for a stretch of the
 * load ({@link #DEAD_TENANT}: answers 503, disabled, its events wait under
 * {@code whileDisabled: wait} and are delivered once it is mended) and one tenant is paused on
 * every provider for another ({@link #PAUSED_TENANT}, through {@code sluice pause tenant}); neither
 * may idle or stall anyone else, and the paused tenant may not be called while paused.
 */
final class ChaosScenario {
  /** Provider name → its {@code onRedisDown} policy. */
  static final Map<String, String> PROVIDERS = Map.of(
      "p-open", "fail_open", "p-closed", "fail_closed", "p-local", "local", "p-hooks", "local");
  /** The provider with an endpoint per tenant, at {@code <provider url>/<tenant>}. */
  static final String HOOKS = "p-hooks";
  static final List<String> PROVIDER_NAMES = List.of("p-open", "p-closed", "p-local", HOOKS);
  /** Each tenant's endpoint's rate: nine of them stay under the provider's strict limit. */
  static final int ENDPOINT_RATE = 2;
  /** The tenant whose endpoint is dead (503) from {@link #DEAD_FROM} to {@link #DEAD_TO}. */
  static final String DEAD_TENANT = "free-4";
  static final double DEAD_FROM = 0.20;
  static final double DEAD_TO = 0.60;
  /**
   * The tenant paused on every provider from {@link #PAUSE_FROM} to {@link #PAUSE_TO}. The pause
   * starts between restarts ({@link FaultPlan}: Redis's first at about a third of the load plus,
   * the brokers' at a sixth plus, 3-4 s each), so the operator's command (a JVM of its own, a few
   * seconds on a loaded machine) is not refused by an absent broker or Redis: at 40% it fell on
   * both restarts of the 45 s IT and was never set.
   */
  static final String PAUSED_TENANT = "pro-2";
  static final double PAUSE_FROM = 0.30;
  static final double PAUSE_TO = 0.65;
  /** Tenant → tier. */
  static final Map<String, String> TENANTS = Map.of(
      "ent-1", "enterprise", "ent-2", "enterprise",
      "pro-1", "pro", "pro-2", "pro", "pro-3", "pro",
      "free-1", "free", "free-2", "free", "free-3", "free", "free-4", "free");
  static final List<String> TENANT_NAMES = List.of("ent-1", "ent-2", "pro-1", "pro-2", "pro-3",
      "free-1", "free-2", "free-3", "free-4");
  /** The tenant that gets half of the events during the load's hot spell. */
  static final String HOT_TENANT = "free-1";
  /** The strict limit of every provider, calls in any sliding second. */
  static final int PROVIDER_LIMIT = 25;
  /** The leak rate: 0.96 of the limit. */
  static final int LEAK_RATE = 24;
  static final long PROVIDER_TIMEOUT_MILLIS = 2_000;
  private ChaosScenario() {}

  static String yaml(String bootstrap, String redisUri, Function<String, String> urlOf,
      int maxRetryAfterSeconds) {
    StringBuilder y = new StringBuilder();
    y.append("kafka:\n  bootstrap: ").append(bootstrap).append("\n  topicPrefix: \"sluice.\"\n");
    y.append("redis:\n  uri: ").append(redisUri).append('\n');
    y.append("ladder: [1s, 5s, 30s]\nmaxAttempts: 8\nreservationHorizon: 30s\n");
    y.append("tiers:\n  enterprise: { weight: 8 }\n  pro: { weight: 4 }\n  free: { weight: 1 }\n");
    y.append("providers:\n");
    for (String p : PROVIDER_NAMES) {
      y.append("  ").append(p).append(":\n");
      if (p.equals(HOOKS)) {
        y.append("    endpoints: perTenant\n")
            .append("    allowPrivateNetworks: true\n")
            .append("    allowPlainHttp: true\n")
            .append("    rate: ").append(ENDPOINT_RATE * 0.96).append("/s\n")
            .append("    disableAfter: 5s\n")
            .append("    probeAfter: 5s\n")
            .append("    whileDisabled: wait\n");
      } else {
        y.append("    url: ").append(urlOf.apply(p)).append('\n')
            .append("    rate: ").append(LEAK_RATE).append("/s\n");
      }
      y.append("    maxInFlight: 8\n")
          .append("    timeout: ").append(PROVIDER_TIMEOUT_MILLIS).append("ms\n")
          .append("    onRedisDown: ").append(PROVIDERS.get(p)).append('\n')
          .append("    maxRetryAfter: ").append(maxRetryAfterSeconds).append("s\n")
          .append("    quotas:\n")
          .append("      enterprise: { capacity: 20, refill: 6/s }\n")
          .append("      pro: { capacity: 10, refill: 3/s }\n")
          .append("      free: { capacity: 4, refill: 1.5/s }\n");
    }
    y.append("tenants:\n");
    for (String t : TENANT_NAMES) {
      y.append("  ").append(t).append(": { tier: ").append(TENANTS.get(t))
          .append(", endpoints: { ").append(HOOKS).append(": \"").append(urlOf.apply(HOOKS))
          .append('/').append(t).append("\" } }\n");
    }
    y.append("http:\n  port: 0\n");
    y.append("dispatcher:\n  backoffBase: 500ms\n  backoffCap: 4s\n  recovery: 10s\n");
    return y.toString();
  }
}
