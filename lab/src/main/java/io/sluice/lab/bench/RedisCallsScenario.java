package io.sluice.lab.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * Scenario 4: Redis calls per admitted event, counted by Redis itself: the growth of the script
 * calls (EVALSHA, EVAL) in {@code INFO commandstats} while a running gate decides a paced load,
 * over the events it admitted. The gate's Redis connection carries scripts only, so these are all
 * its requests; the commands the script runs inside itself are shown apart. Cases: one tenant at 1,000/s and at 4,000/s (its quota far
 * above), and 1,000 tenants at 1/s each. The count starts once the gate runs (its start-up writes
 * the slot markers once, which is not a per-event cost).
 */
final class RedisCallsScenario implements BenchScenario {
  @Override
  public String name() {
    return "calls";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(), "Redis calls per admitted event");
    double seconds = ctx.quick() ? 1 : 8;
    double oneTenant = measure(ctx, r, "one tenant at 1,000/s", 1_000, 1, seconds);
    if (!ctx.quick()) {
      measure(ctx, r, "one tenant at 4,000/s", 4_000, 1, seconds);
    }
    measure(ctx, r, "1,000 tenants at 1/s each", 1_000, 1_000, ctx.quick() ? 1 : 12);
    r.target("Redis calls per admitted event, one tenant at 1,000/s", "≤ 0.2",
        String.format(Locale.ROOT, "%.3f", oneTenant), oneTenant <= 0.2);
    r.note("**Redis calls per admitted event** is Redis's own count of script calls (EVALSHA "
        + "and EVAL in INFO commandstats, after the gate started) during the load over the events "
        + "the gate admitted; **commands executed** adds the commands each script runs inside "
        + "Redis (TIME, HMGET, HSET and so on), which cost Redis CPU but no round trip: a busy tenant is served from leases sized to its demand, so it costs a "
        + "fraction of a call per event; a tenant at 1/s needs a fresh decision for nearly every "
        + "event, because a lease is held only about a second.");
    return r;
  }

  private static double measure(BenchContext ctx, ScenarioResult r, String label,
      double perSecond, int tenants, double seconds) throws Exception {
    String prefix = BenchContext.unique("c");
    try (BenchPipeline p = BenchPipeline.start(ctx, new BenchConfig(), 4, false, 0);
        EventLoad load = new EventLoad(p.config, false)) {
      long before = ctx.redis().scriptCalls();
      long commandsBefore = ctx.redis().totalCalls();
      long sent = load.paced(perSecond, seconds, i -> prefix + "-" + (i % tenants));
      BenchPipeline.await(() -> p.gate.admitted.sum() + p.gate.dead.sum() >= sent,
          Duration.ofSeconds(60), "the gate to admit " + sent + " events");
      long calls = ctx.redis().scriptCalls() - before;
      long commands = ctx.redis().totalCalls() - commandsBefore;
      long admitted = p.gate.admitted.sum();
      double perEvent = calls / (double) admitted;
      ctx.progress("calls: %s: %,d admitted, %,d Redis calls, %.3f per event", label,
          admitted, calls, perEvent);
      r.row(label, "events admitted", admitted, "Redis calls", calls,
          "Redis calls per admitted event", perEvent,
          "commands executed per event (inside scripts too)", commands / (double) admitted);
      return perEvent;
    }
  }
}
