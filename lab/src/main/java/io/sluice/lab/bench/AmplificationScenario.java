package io.sluice.lab.bench;

import java.time.Duration;
import java.util.Locale;

/**
 * Scenario 7: amplification, gate decisions per unique event, with one tenant offering ten times
 * its rate. With reservations on (a horizon longer than the backlog) each over-quota event is
 * charged ahead once and goes to the dispatcher at its due time without passing the gate again;
 * with them off (horizon 0 s) each is queued with a ticket and decided again when its turn comes.
 * A run ends when every event is admitted or paid (no decision can follow).
 */
final class AmplificationScenario implements BenchScenario {
  @Override
  public String name() {
    return "amplification";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(), "gate decisions per unique event");
    int rate = ctx.quick() ? 100 : 50;
    double seconds = ctx.quick() ? 0.2 : 2;
    double on = measure(ctx, r, "reservations on (horizon 30 s)", "30s", rate, seconds);
    measure(ctx, r, "reservations off (horizon 0 s)", "0s", rate, seconds);
    r.target("decisions per unique event, reservations on", "≤ 1.05",
        String.format(Locale.ROOT, "%.3f", on), on <= 1.05);
    r.note(String.format(Locale.ROOT, "One tenant with a bucket of %d refilled at %d/s was "
        + "offered %d/s for %.1f s; **decisions per unique event** is the gate's count of "
        + "decisions (its listener) over the events produced.", rate, rate, 10 * rate, seconds));
    return r;
  }

  private static double measure(BenchContext ctx, ScenarioResult r, String label, String horizon,
      int rate, double seconds) throws Exception {
    BenchConfig spec = new BenchConfig().quota(rate, rate).horizon(horizon);
    try (BenchPipeline p = BenchPipeline.start(ctx, spec, 4, true, 0);
        EventLoad load = new EventLoad(p.config, false)) {
      String tenant = BenchContext.unique("a");
      long sent = load.paced(10.0 * rate, seconds, i -> tenant);
      BenchPipeline.await(() -> p.gate.admitted.sum() + p.gate.reserved.sum() >= sent,
          Duration.ofSeconds((long) (sent / rate) + 60), "every event admitted or paid");
      double perEvent = p.gate.decided.sum() / (double) sent;
      ctx.progress("amplification: %s: %.3f decisions per event", label, perEvent);
      r.row(label, "events", sent, "decisions", p.gate.decided.sum(),
          "decisions per unique event", perEvent, "admitted at once", p.gate.admitted.sum(),
          "reserved (paid)", p.gate.reserved.sum(), "queued (ticket)", p.gate.queued.sum());
      return perEvent;
    }
  }
}
