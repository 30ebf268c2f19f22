package io.sluice.lab.bench;

import io.sluice.embedded.mock.MockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Scenario 6: weighted fairness end to end. Tiers gold, silver and free (weights 8:4:1), ten
 * tenants each, every tenant with a backlog larger than the run, saturate one strict provider
 * through two dispatcher instances. A tier's share is its part of the calls that arrived at the
 * provider in the window (from 2 s after the first call, for the run's length), against its
 * weight's part of the weights; Jain's index is over the calls of the tenants within each tier.
 */
final class FairnessScenario implements BenchScenario {
  private static final int TENANTS_PER_TIER = 10;

  @Override
  public String name() {
    return "fairness";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(), "tier shares and fairness within a tier");
    int rate = ctx.quick() ? 100 : 200;
    double seconds = ctx.quick() ? 1 : 12;
    String run = BenchContext.unique("f");
    BenchConfig spec = new BenchConfig();
    List<String> tenants = new ArrayList<>();
    for (String tier : BenchConfig.TIERS) {
      for (int i = 0; i < TENANTS_PER_TIER; i++) {
        String tenant = tier + "-" + run + "-" + i;
        tenants.add(tenant);
        if (!tier.equals("free")) {
          spec.tier(tenant, tier);
        }
      }
    }
    double worstDeviation = 0;
    double worstJain = 1;
    try (MockProvider mock = ProviderRun.start((int) Math.ceil(1.04 * rate))) {
      spec.provider(mock.url().toString(), rate);
      try (BenchPipeline p = BenchPipeline.start(ctx, spec, 4, true, 2);
          EventLoad load = new EventLoad(p.config, true)) {
        ProviderRun.warmUp(p.config, mock);
        // Enough for each tenant to stay backlogged even if its tier had the provider alone.
        long perTenant = Math.round(rate * (seconds + 6) / TENANTS_PER_TIER);
        load.preload(perTenant * tenants.size(), i -> tenants.get((int) (i % tenants.size())));
        BenchPipeline.await(() -> mock.callCount() > 0, Duration.ofSeconds(60), "a first call");
        long from = mock.calls().get(0).atNanos() + (ctx.quick() ? 500_000_000L : 2_000_000_000L);
        long to = from + (long) (seconds * 1e9);
        BenchPipeline.await(() -> System.nanoTime() > to + 200_000_000L,
            Duration.ofSeconds((long) seconds + 30), "the end of the window");
        Map<String, Long> byTenant = new LinkedHashMap<>();
        tenants.forEach(t -> byTenant.put(t, 0L));
        long total = 0;
        for (MockProvider.Call c : mock.calls()) {
          if (c.atNanos() >= from && c.atNanos() < to && c.status() == 200) {
            byTenant.merge(EventLoad.tenantOf(c.body()), 1L, Long::sum);
            total++;
          }
        }
        double weightSum = BenchConfig.WEIGHTS.values().stream().mapToDouble(d -> d).sum();
        for (String tier : BenchConfig.TIERS) {
          double[] calls = tenants.stream().filter(t -> t.startsWith(tier + "-"))
              .mapToDouble(byTenant::get).toArray();
          double tierCalls = Arrays.stream(calls).sum();
          double share = tierCalls / total;
          double weightShare = BenchConfig.WEIGHTS.get(tier) / weightSum;
          double deviation = (share - weightShare) / weightShare;
          double jain = BenchStats.jain(calls);
          worstDeviation = Math.max(worstDeviation, Math.abs(deviation));
          worstJain = Math.min(worstJain, jain);
          ctx.progress("fairness: %s: share %.4f (weight %.4f), Jain %.4f", tier, share,
              weightShare, jain);
          r.row(String.format(Locale.ROOT, "%s (weight %.0f, %d tenants)", tier,
                  BenchConfig.WEIGHTS.get(tier), TENANTS_PER_TIER),
              "calls", (long) tierCalls, "share", share, "weight share", weightShare,
              "deviation", String.format(Locale.ROOT, "%+.2f%%", 100 * deviation),
              "Jain's index within the tier", jain,
              "calls per tenant (min–max)", String.format(Locale.ROOT, "%.0f–%.0f",
                  BenchStats.min(calls), BenchStats.max(calls)));
        }
        r.note(String.format(Locale.ROOT, "%,d calls at %d/s (provider limit %d in any second) "
            + "through two dispatchers were counted in a %.0f s window.", total, rate,
            (int) Math.ceil(1.04 * rate), seconds));
      }
    }
    r.target("tier share against weight share", "within ±3% (relative)",
        String.format(Locale.ROOT, "worst %.2f%%", 100 * worstDeviation), worstDeviation <= 0.03);
    r.target("Jain's index within a tier", "≥ 0.99", String.format(Locale.ROOT, "lowest %.4f",
        worstJain), worstJain >= 0.99);
    r.note("**share** is the tier's part of the calls answered 200 in the window; **weight "
        + "share** is its weight over the sum of weights (8/13, 4/13, 1/13); **deviation** is "
        + "(share − weight share) / weight share.");
    r.note("Tenants reach the two dispatchers by the hash of their id, so a tier's tenants are "
        + "split unevenly between them. Each dispatcher publishes its busy tenants per tier to "
        + "Redis every 250 ms and claims its part of the leak from the sums (GlobalShare, "
        + "ClaimAllowance): without that, the two would split the leak evenly and a tenant "
        + "sitting with few of its tier would get several times what its tier-mates get.");
    r.note("**Jain's index** is (Σx)² / (n·Σx²) over the calls of a tier's tenants: 1 when they "
        + "got the same, 1/n when one got everything.");
    return r;
  }
}
