package io.sluice.lab.bench;

import io.sluice.embedded.mock.MockProvider;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Scenario 9: end-to-end latency of under-quota events, from the producer's send to the call's
 * arrival at the provider (both {@code System.nanoTime()} in this JVM: the send time travels in
 * the payload). 20 tenants far within quota at 200 events/s in all, every role running (gate,
 * relay, one dispatcher), a provider far from its limit.
 */
final class LatencyScenario implements BenchScenario {
  @Override
  public String name() {
    return "latency";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(), "end-to-end latency, produce to provider call");
    double seconds = ctx.quick() ? 1 : 10;
    try (MockProvider mock = ProviderRun.start(100_000)) {
      BenchConfig spec = new BenchConfig().provider(mock.url().toString(), 5_000);
      try (BenchPipeline p = BenchPipeline.start(ctx, spec, 4, true, 1);
          EventLoad load = new EventLoad(p.config, false)) {
        ProviderRun.warmUp(p.config, mock);
        String prefix = BenchContext.unique("e");
        long sent = load.paced(200, seconds, i -> prefix + "-" + (i % 20));
        BenchPipeline.await(() -> mock.callCount() >= sent, Duration.ofSeconds(60),
            "every event to reach the provider");
        List<MockProvider.Call> calls = mock.calls();
        double[] millis = calls.stream()
            .mapToDouble(c -> (c.atNanos() - EventLoad.sentNanosOf(c.body())) / 1e6).toArray();
        ctx.progress("latency: %d calls, p50 %.1f ms, p99 %.1f ms", millis.length,
            BenchStats.percentile(millis, 50), BenchStats.percentile(millis, 99));
        r.row("200 events/s, 20 tenants within quota", "events", (long) millis.length,
            "p50 (ms)", BenchStats.percentile(millis, 50),
            "p99 (ms)", BenchStats.percentile(millis, 99), "max (ms)", BenchStats.max(millis));
        r.note(String.format(Locale.ROOT, "**p50 / p99** of the time from the producer's send "
            + "to the call's arrival at the provider over %d events. Most of it is "
            + "exactly_once_v2: the gate's output becomes visible to the dispatcher "
            + "(read_committed) only when the gate's transaction commits, every 100 ms.",
            millis.length));
      }
    }
    return r;
  }
}
