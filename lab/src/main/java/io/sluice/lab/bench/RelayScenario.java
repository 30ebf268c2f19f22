package io.sluice.lab.bench;

import io.sluice.config.ConfigDefaults;
import io.sluice.schemas.topic.DelayLadder;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Scenario 8: relay lateness, release time minus not-before (the relay's own report of each
 * release), under load: 100 tenants each offered twice its quota (bucket 10, 10/s) for the run,
 * so half the events are reserved with waits that grow through the run and cross ladder steps.
 * Once with a 100 ms step added below the default ladder and once with the default ladder. Hops: the measured hops per released record, and, worked out from the
 * ladder's rules ({@link DelayPath}), the step topics a record waiting 10 minutes passes.
 */
final class RelayScenario implements BenchScenario {
  @Override
  public String name() {
    return "relay";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(), "relay lateness and hops");
    double seconds = ctx.quick() ? 1 : 8;
    double p99Fine = measure(ctx, r, "[100ms, 1s, 5s, 30s, 2m, 10m]", seconds);
    double p99Default = ctx.quick() ? Double.NaN
        : measure(ctx, r, "[1s, 5s, 30s, 2m, 10m] (default)", seconds);
    DelayLadder ladder = new DelayLadder(ConfigDefaults.LADDER);
    int exact = DelayPath.placements(ladder, Duration.ofMinutes(10).toMillis());
    int under = DelayPath.placements(ladder, Duration.ofMinutes(10).toMillis() - 1);
    r.row("10-minute wait, default ladder (worked out)",
        "hops per record", (double) (exact - 1),
        "note", "exactly 10 min: " + exact + " step topic, no hop; 1 ms less: " + under
            + " step topics (" + (under - 1) + " hops)");
    r.target("relay lateness p99, ladder with a 100 ms step", "≤ 100 ms",
        String.format(Locale.ROOT, "%.0f ms", p99Fine), p99Fine <= 100);
    if (!ctx.quick()) {
      r.target("relay lateness p99, default ladder", "≤ 100 ms",
          String.format(Locale.ROOT, "%.0f ms", p99Default), p99Default <= 100);
    }
    r.note("**lateness** is the relay's release time minus the record's not-before, as the relay "
        + "reports each release; **min** shows it is never negative (a record never leaves "
        + "early).");
    r.note("The relay reads each delay partition ahead (at most 1,000 records) and releases each "
        + "record as it falls due, whatever the records before it do; a record with less than the "
        + "hold (the smallest step, at least 1 s) left when its stay ends is held to its not-before "
        + "rather than hopped, since a hop's record is read only after every transaction open "
        + "before it on the step's partition (the gate's among them) has ended.");
    r.note("**hops per record** counts moves from one step topic to a smaller one per released "
        + "record; for 10 minutes it is worked out from the ladder's own rules with no time lost "
        + "between steps (a wait just under a step size walks down every smaller step, bar the "
        + "hold).");
    return r;
  }

  private static double measure(BenchContext ctx, ScenarioResult r, String ladder,
      double seconds) throws Exception {
    BenchConfig spec = new BenchConfig().quota(10, 10)
        .ladder(ladder.replace(" (default)", ""));
    try (BenchPipeline p = BenchPipeline.start(ctx, spec, 4, true, 0);
        EventLoad load = new EventLoad(p.config, false)) {
      String prefix = BenchContext.unique("r");
      load.paced(2_000, seconds, i -> prefix + "-" + (i % 100));
      BenchPipeline.await(() -> p.gate.reserved.sum() + p.gate.queued.sum() > 0
              && p.relay.released() >= p.gate.reserved.sum() + p.gate.queued.sum(),
          Duration.ofSeconds((long) seconds * 2 + 60), "the relay to release every record");
      double[] late = p.relay.lateMillis();
      double p99 = BenchStats.percentile(late, 99);
      ctx.progress("relay: %s: %d released, p50 %.0f ms, p99 %.0f ms, max %.0f ms", ladder,
          late.length, BenchStats.percentile(late, 50), p99, BenchStats.max(late));
      r.row("ladder " + ladder, "records released", (long) late.length,
          "lateness p50 (ms)", BenchStats.percentile(late, 50), "lateness p99 (ms)", p99,
          "lateness max (ms)", BenchStats.max(late), "lateness min (ms)", BenchStats.min(late),
          "hops per record", p.relay.hops.sum() / (double) late.length);
      return p99;
    }
  }
}
