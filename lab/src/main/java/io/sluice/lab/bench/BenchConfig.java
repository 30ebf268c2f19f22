package io.sluice.lab.bench;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Sluice configuration of one scenario run, written as the YAML a user would write: one
 * provider ({@link #PROVIDER}), three tiers weighted 8:4:1 (gold, silver, free; free is the
 * default), a quota per tier. Defaults: quotas so large no tenant reaches them, the default
 * ladder and horizon, one stream thread. Each scenario changes what it measures.
 */
final class BenchConfig {
  static final String PROVIDER = "bench-api";
  static final List<String> TIERS = List.of("gold", "silver", "free");
  static final Map<String, Double> WEIGHTS = Map.of("gold", 8.0, "silver", 4.0, "free", 1.0);

  private final Map<String, double[]> quotas = new LinkedHashMap<>();
  private final Map<String, String> tenantTiers = new LinkedHashMap<>();
  private String providerUrl = "http://127.0.0.1:9/unused";
  private double providerRate = 100_000;
  private String horizon = "30s";
  /** Every tier's tier-wide budget toward the provider ({capacity, refill}); null: none. */
  private double[] tierBudget;
  private String ladder = "[1s, 5s, 30s, 2m, 10m]";
  private int streamThreads = 1;
  private Integer maxLease;
  private int maxInFlight = 16;
  private int maxCost = 10;
  private String dedupWindow;
  /** The provider's {@code learnedFloor} (the default unless set). */
  private Double learnedFloor;

  BenchConfig() {
    TIERS.forEach(t -> quotas.put(t, new double[] {1_000_000, 1_000_000}));
  }

  /** Every tier's quota: a bucket of {@code capacity} refilled at {@code refill} per second. */
  BenchConfig quota(double capacity, double refill) {
    TIERS.forEach(t -> quotas.put(t, new double[] {capacity, refill}));
    return this;
  }

  BenchConfig provider(String url, double ratePerSecond) {
    this.providerUrl = url;
    this.providerRate = ratePerSecond;
    return this;
  }

  BenchConfig tier(String tenant, String tier) {
    tenantTiers.put(tenant, tier);
    return this;
  }

  /** {@code 0s}: reservations off (an over-quota event is queued, never charged ahead). */
  BenchConfig horizon(String horizon) {
    this.horizon = horizon;
    return this;
  }

  BenchConfig ladder(String ladder) {
    this.ladder = ladder;
    return this;
  }

  BenchConfig streamThreads(int threads) {
    this.streamThreads = threads;
    return this;
  }

  /**
   * Every tier also has a tier-wide budget toward the provider: each event is then charged against
   * two rules at once (its tenant's quota and the budget), through the multi-rule script.
   */
  BenchConfig tierBudget(double capacity, double refill) {
    this.tierBudget = new double[] {capacity, refill};
    return this;
  }

  /** Most units one lease takes (0: no leases). */
  BenchConfig maxLease(int units) {
    this.maxLease = units;
    return this;
  }

  BenchConfig maxInFlight(int calls) {
    this.maxInFlight = calls;
    return this;
  }

  /** The provider's {@code maxCost} (10 unless set). */
  BenchConfig maxCost(int cost) {
    this.maxCost = cost;
    return this;
  }

  /** The provider's {@code dedupWindow} (none unless set): one dedup check per event. */
  BenchConfig dedupWindow(String window) {
    this.dedupWindow = window;
    return this;
  }

  /** The provider's {@code learnedFloor} (the default, 0.1, unless set). */
  BenchConfig learnedFloor(double floor) {
    this.learnedFloor = floor;
    return this;
  }

  /** The configuration for these servers, every name starting with {@code prefix}. */
  SluiceConfig load(BenchContext ctx, String prefix) {
    return ConfigLoader.parse(yaml(ctx.bootstrap(), ctx.redisUri(), prefix), Map.of());
  }

  String yaml(String bootstrap, String redisUri, String prefix) {
    List<String> y = new ArrayList<>();
    y.add("kafka: { bootstrap: \"" + bootstrap + "\", topicPrefix: \"" + prefix + ".\" }");
    y.add("redis: { uri: \"" + redisUri + "\" }");
    y.add("ladder: " + ladder);
    y.add("reservationHorizon: " + horizon);
    String budgets = tierBudget == null ? "" : String.format(Locale.ROOT,
        ", budgets: { %s: { capacity: %s, refill: %s/s } }", PROVIDER, number(tierBudget[0]), number(tierBudget[1]));
    y.add("tiers: { gold: { weight: 8" + budgets + " }, silver: { weight: 4" + budgets + " }, free: { weight: 1"
        + budgets + " } }");
    y.add("defaultTier: free");
    y.add("providers:");
    y.add("  " + PROVIDER + ":");
    y.add("    url: \"" + providerUrl + "\"");
    y.add(String.format(Locale.ROOT, "    rate: %s/s", number(providerRate)));
    y.add("    maxInFlight: " + maxInFlight);
    y.add("    timeout: 5s");
    y.add("    maxCost: " + maxCost);
    if (learnedFloor != null) {
      y.add("    learnedFloor: " + number(learnedFloor));
    }
    if (dedupWindow != null) {
      y.add("    dedupWindow: " + dedupWindow);
    }
    y.add("    quotas:");
    quotas.forEach((tier, q) -> y.add(String.format(Locale.ROOT,
        "      %s: { capacity: %s, refill: %s/s }", tier, number(q[0]), number(q[1]))));
    if (!tenantTiers.isEmpty()) {
      y.add("tenants:");
      tenantTiers.forEach((tenant, tier) -> y.add("  " + tenant + ": { tier: " + tier + " }"));
    }
    y.add("gate: { applicationId: \"" + prefix + "-gate\", streamThreads: " + streamThreads
        + (maxLease == null ? "" : ", maxLease: " + maxLease) + " }");
    y.add("dispatcher: { groupId: \"" + prefix + "-dispatcher\" }");
    y.add("http: { port: 0 }");
    return String.join("\n", y) + "\n";
  }

  private static String number(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
