package io.sluice.lab.demo;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the demo runs: one partner API at {@code rate} calls per second, three tiers weighted
 * 8:4:1, 30 tenants, a steady load a little above what the provider takes, one burst of ten
 * times its rate, and a few malformed events.
 *
 * <h2>Why these numbers</h2>
 * Each tenant offers a little under its quota (enterprise 10/s, pro 4/s, free 1/s), so the gate
 * admits the steady load; together the 30 tenants offer about 1.14 times the provider's rate, so
 * the dispatcher always has a backlog and the provider is saturated (the leak rate is what shows).
 * The burst, a quarter of the way in, is ten times the rate in one second, spread over every
 * tenant: enterprise and pro tenants fit it in their buckets' capacity and it lands in the
 * dispatcher's buffer, where weighted fair queueing shares the provider 8:4:1; free tenants
 * exceed theirs and the gate defers them through the ladder with an exact wait.
 *
 * @param rate     the provider's leak rate, calls per second (its own limit is
 *                 {@link #providerLimit()})
 * @param duration how long the load generator produces
 */
public record DemoScenario(double rate, Duration duration) {
  public static final String PROVIDER = "partner-api";
  public static final Map<String, Double> WEIGHTS = Map.of("enterprise", 8.0, "pro", 4.0,
      "free", 1.0);
  /** Tenants per tier: 5 enterprise, 10 pro, 15 free. */
  public static final Map<String, Integer> TENANTS = tenantsPerTier();

  private static Map<String, Integer> tenantsPerTier() {
    Map<String, Integer> t = new LinkedHashMap<>();
    t.put("enterprise", 5);
    t.put("pro", 10);
    t.put("free", 15);
    return t;
  }

  /**
   * The provider's own limit: calls in any sliding second, with no burst tolerance, the smallest
   * of which the leak rate is at most 0.96 (53 for 50/s). A strict provider judges arrivals, so
   * the leak needs a call's worth of room for the jitter between a slot and the call's arrival
   * (the timer, the hand-off to the HTTP client, loopback transit on a busy machine).
   */
  public int providerLimit() {
    return (int) Math.ceil(rate / 0.96);
  }

  /** Every tenant id with its tier, in a stable order. */
  public Map<String, String> tenants() {
    Map<String, String> tenants = new LinkedHashMap<>();
    TENANTS.forEach((tier, n) -> {
      for (int i = 1; i <= n; i++) {
        tenants.put(tier + "-" + i, tier);
      }
    });
    return tenants;
  }

  /**
   * Events per second each tenant of a tier offers: shares of {@code 1.14 * rate} in the ratio
   * of the tiers' quotas, so every tenant stays a little under its own quota at the default rate.
   */
  public double offeredPerTenant(String tier) {
    return refillOf(tier) * 1.14 * rate / TOTAL_REFILL;
  }

  /** A tier's quota refill per tenant, events per second (as in {@link #yaml}). */
  static double refillOf(String tier) {
    return switch (tier) {
      case "enterprise" -> 10;
      case "pro" -> 4;
      default -> 1;
    };
  }

  /** The sum of every tenant's refill: 5 * 10 + 10 * 4 + 15 * 1. */
  private static final double TOTAL_REFILL = 105;

  /** The configuration, around the given servers and mock provider. */
  public String yaml(String bootstrap, String redisUri, URI providerUrl, String prefix) {
    List<String> lines = new ArrayList<>();
    lines.add("kafka: { bootstrap: \"" + bootstrap + "\", topicPrefix: \"" + prefix + "\" }");
    lines.add("redis: { uri: \"" + redisUri + "\" }");
    lines.add("ladder: [250ms, 1s, 5s, 30s]");
    lines.add("maxAttempts: 5");
    lines.add("reservationHorizon: 20s");
    lines.add("tiers: { enterprise: { weight: 8 }, pro: { weight: 4 }, free: { weight: 1 } }");
    lines.add("defaultTier: free");
    lines.add("providers:");
    lines.add("  " + PROVIDER + ":");
    lines.add("    url: \"" + providerUrl + "\"");
    lines.add("    rate: " + rate + "/s");
    lines.add("    maxInFlight: 16");
    lines.add("    timeout: 5s");
    lines.add("    onRedisDown: local");
    lines.add("    forwardHeaders: [X-Request-Id]");
    lines.add("    maxCost: 10");
    lines.add("    quotas:");
    lines.add("      enterprise: { capacity: 40, refill: 10/s }");
    lines.add("      pro: { capacity: 20, refill: 4/s }");
    lines.add("      free: { capacity: 10, refill: 1/s }");
    lines.add("tenants:");
    tenants().forEach((tenant, tier) -> {
      if (!tier.equals("free")) {
        lines.add("  " + tenant + ": { tier: " + tier + " }");
      }
    });
    lines.add("gate: { applicationId: \"" + prefix + "gate\", maxPayloadBytes: 4096 }");
    lines.add("dispatcher: { groupId: \"" + prefix + "dispatcher\", bufferSize: 1000 }");
    lines.add("http: { port: 0 }");
    return String.join("\n", lines) + "\n";
  }
}
