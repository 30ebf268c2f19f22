package io.sluice.dispatcher.bench;

import java.util.Locale;
import java.util.Random;

/**
 * Scenario 1: the gate's throughput as a ratio to a bare pass-through topology in the same run
 * (exactly_once_v2, 2 stream threads, 4 partitions, the same pre-loaded events). Three traffic
 * shapes:
 * <ul>
 *   <li>uniform within quota: 1,000 tenants, round robin, none near its quota;</li>
 *   <li>uniform over quota: 100 tenants with a bucket of 20 refilled at 20/s, far over it (most
 *       events reserved ahead, within the horizon, or queued);</li>
 *   <li>Zipf: 1,000 tenants drawn with Zipf weights (s = 1), with one allowance for every tenant
 *       chosen so that about half of all events are over it ({@link BenchStats#allowanceFor}).
 *       The allowance is the bucket's capacity; its refill (1/s) adds almost nothing during a run
 *       of a few seconds.</li>
 * </ul>
 * Each kind of topology first runs once unreported: the first run in a JVM pays for JIT
 * compilation of the gate, Lettuce and Jackson (a core of the two, here).
 */
final class GateScenario implements BenchScenario {
  static final int THREADS = 2;
  static final int PARTITIONS = 4;

  @Override
  public String name() {
    return "gate";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(),
        "gate throughput against a bare pass-through topology");
    long events = ctx.size(100_000, 3_000);
    int tenants = 1_000;
    if (!ctx.quick()) {
      ctx.progress("gate: warm-up runs (not reported)");
      GateThroughput.passThrough(ctx, THREADS, PARTITIONS, events / 4, roundRobin(tenants));
      GateThroughput.gate(ctx, new BenchConfig().streamThreads(THREADS), PARTITIONS, events / 4,
          roundRobin(tenants));
    }
    GateThroughput.Result pass = GateThroughput.passThrough(ctx, THREADS, PARTITIONS, events,
        roundRobin(tenants));
    ctx.progress("gate: pass-through %,.0f events/s", pass.eventsPerSecond());
    r.row("pass-through, exactly_once_v2", "events/s", pass.eventsPerSecond(),
        "ratio to pass-through", 1.0, "share over quota", 0.0, "Redis calls per event", 0.0);

    GateThroughput.Result within = GateThroughput.gate(ctx,
        new BenchConfig().streamThreads(THREADS), PARTITIONS, events,
        roundRobin(tenants));
    row(r, "gate, 1,000 tenants uniform, within quota", within, pass);

    int fewTenants = 100;
    GateThroughput.Result over = GateThroughput.gate(ctx,
        new BenchConfig().streamThreads(THREADS).quota(20, 20), PARTITIONS, events,
        roundRobin(fewTenants));
    row(r, "gate, 100 tenants uniform, over quota (20/s each)", over, pass);

    double[] weights = BenchStats.zipf(tenants, 1);
    double allowance = Math.max(1, Math.round(BenchStats.allowanceFor(weights, events, 0.5)));
    double[] cumulative = new double[tenants];
    double sum = 0;
    for (int k = 0; k < tenants; k++) {
      sum += weights[k];
      cumulative[k] = sum;
    }
    Random random = new Random(42);
    String zipfTenants = BenchContext.unique("z");
    GateThroughput.Result zipf = GateThroughput.gate(ctx,
        new BenchConfig().streamThreads(THREADS).quota(allowance, 1), PARTITIONS, events,
        i -> zipfTenants + "-" + pick(cumulative, random.nextDouble()));
    row(r, String.format(Locale.ROOT, "gate, 1,000 tenants Zipf (s = 1), allowance %.0f each",
        allowance), zipf, pass);

    double worst = Math.min(within.eventsPerSecond(),
        Math.min(over.eventsPerSecond(), zipf.eventsPerSecond())) / pass.eventsPerSecond();
    r.target("gate / pass-through, every case", "≥ 0.70",
        String.format(Locale.ROOT, "%.2f (lowest)", worst), worst >= 0.70);
    r.note(String.format(Locale.ROOT, "**events/s** is output records per second between the "
        + "first and last output of %,d pre-loaded events, read committed; pass-through (source to "
        + "sink, bytes untouched) ran at %,.0f/s with the same exactly_once_v2, %d stream threads "
        + "and %d partitions.", events, pass.eventsPerSecond(), THREADS, PARTITIONS));
    r.note(String.format(Locale.ROOT, "**ratio to pass-through** is the gate's cost: %.2f "
        + "within quota, %.2f over quota and %.2f for Zipf traffic (target 0.70).",
        within.eventsPerSecond() / pass.eventsPerSecond(),
        over.eventsPerSecond() / pass.eventsPerSecond(),
        zipf.eventsPerSecond() / pass.eventsPerSecond()));
    r.note(String.format(Locale.ROOT, "**share over quota** is the gate's own count of deferred "
        + "decisions over all decisions; the Zipf allowance was solved for a half, and %.0f%% of "
        + "the events went over it.", 100 * zipf.deferredShare()));
    r.note("**Redis calls per event** are the gate's script calls over the events: leases and "
        + "places in line serve the rest without a round trip.");
    return r;
  }

  /** Event i of tenant i mod n; tenant names fresh for each call, so no run meets another's buckets. */
  static java.util.function.LongFunction<String> roundRobin(int n) {
    String prefix = BenchContext.unique("t");
    return i -> prefix + "-" + (i % n);
  }

  private static void row(ScenarioResult r, String label, GateThroughput.Result g,
      GateThroughput.Result pass) {
    r.row(label, "events/s", g.eventsPerSecond(),
        "ratio to pass-through", g.eventsPerSecond() / pass.eventsPerSecond(),
        "share over quota", g.deferredShare(), "Redis calls per event", g.redisCallsPerEvent());
  }

  /** The first rank whose cumulative weight reaches {@code u}. */
  private static int pick(double[] cumulative, double u) {
    int lo = 0;
    int hi = cumulative.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] >= u) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }
}
