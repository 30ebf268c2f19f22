package io.sluice.lab.bench;

import io.sluice.embedded.mock.MockProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Scenario 5: leak precision, judged where it matters, at the provider, on call arrival times.
 * Two dispatcher instances (one consumer group, sharing the leak through Redis) drain a backlog
 * larger than the run into a strict mock provider whose own limit is 1.04 times the configured
 * rate, with no burst tolerance (at most ⌈1.04·rate⌉ calls in any sliding second). The window
 * measured starts 0.5 s after the first call and lasts the run; the backlog outlasts it.
 *
 * <p>One case runs a single instance: its lane then holds every slot of the leak, one after the
 * other, so whatever it loses between two of its own slots (a claim that comes late, a slot
 * dropped by its pacer) is not made up by another instance's claims.
 */
final class LeakScenario implements BenchScenario {
  /** One run: {@code rate} per second from {@code instances} dispatchers, for {@code seconds}. */
  private record Case(int rate, int instances, double seconds) {}

  @Override
  public String name() {
    return "leak";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(), "leak precision at the provider");
    List<Case> cases = ctx.quick() ? List.of(new Case(100, 2, 1))
        : List.of(new Case(10, 2, 20), new Case(100, 2, 10), new Case(1_000, 2, 10),
            new Case(100, 1, 10));
    List<String> misses = new ArrayList<>();
    double worstRatio = 0;
    long all429 = 0;
    for (Case c : cases) {
      int rate = c.rate();
      double seconds = c.seconds();
      String dispatchers = c.instances() == 1 ? "1 dispatcher" : c.instances() + " dispatchers";
      int limit = (int) Math.ceil(1.04 * rate);
      try (MockProvider mock = ProviderRun.start(limit)) {
        BenchConfig spec = new BenchConfig().provider(mock.url().toString(), rate);
        try (BenchPipeline p = BenchPipeline.start(ctx, spec, 4, true, c.instances());
            EventLoad load = new EventLoad(p.config, true)) {
          ProviderRun.warmUp(p.config, mock);
          String prefix = BenchContext.unique("k");
          load.preload(Math.round(rate * (seconds + 3)), i -> prefix + "-" + (i % 10));
          BenchPipeline.await(() -> mock.callCount() > 0, Duration.ofSeconds(60), "a first call");
          long first = mock.calls().get(0).atNanos();
          long from = first + 500_000_000L;
          long to = from + (long) (seconds * 1e9);
          BenchPipeline.await(() -> System.nanoTime() > to + 200_000_000L,
              Duration.ofSeconds((long) seconds + 30), "the end of the window");
          List<MockProvider.Call> calls = mock.calls();
          long[] window = ProviderRun.arrivals(calls, from, to);
          long[] every = ProviderRun.arrivals(calls, Long.MIN_VALUE, Long.MAX_VALUE);
          double achieved = BenchStats.rate(window, 1e9);
          double ratio = achieved / rate;
          double[] gapsMs = BenchStats.gaps(window);
          for (int i = 0; i < gapsMs.length; i++) {
            gapsMs[i] /= 1e6;
          }
          double nominalMs = 1000.0 / rate;
          int maxInSecond = BenchStats.maxInWindow(every, 1_000_000_000L);
          long tooMany = mock.rateLimited();
          all429 += tooMany;
          worstRatio = Math.max(worstRatio, Math.abs(ratio - 1));
          if (Math.abs(ratio - 1) > 0.01) {
            misses.add(rate + "/s, " + dispatchers);
          }
          if (ratio < 0.9) {
            r.note(String.format(Locale.ROOT, "At %,d/s %s delivered %,.0f calls/s with a "
                + "backlog waiting and no 429: they could not keep up with the configured rate on "
                + "this machine, where one JVM also runs the broker, the gate, the relay and the "
                + "provider.", rate, dispatchers, achieved));
          }
          ctx.progress("leak: %d/s, %s: achieved %.2f/s (%.4f), p99 gap %.2f ms, max %d in 1 s, "
              + "%d 429s", rate, dispatchers, achieved, ratio, BenchStats.percentile(gapsMs, 99),
              maxInSecond, tooMany);
          r.row(String.format(Locale.ROOT, "%,d/s, %s, provider limit %d in any 1 s",
                  rate, dispatchers, limit),
              "calls measured", (long) window.length, "achieved / configured", ratio,
              "nominal gap (ms)", nominalMs,
              "p50 gap (ms)", BenchStats.percentile(gapsMs, 50),
              "p99 gap (ms)", BenchStats.percentile(gapsMs, 99),
              "max calls in any 1 s", (long) maxInSecond, "429s", tooMany);
        }
      }
    }
    r.target("achieved / configured, every rate", "within ±1%",
        String.format(Locale.ROOT, "worst %.2f%% off%s", 100 * worstRatio,
            misses.isEmpty() ? "" : " (" + String.join(", ", misses) + ")"), misses.isEmpty());
    r.target("429s from a strict provider at 1.04× the rate", "0", Long.toString(all429),
        all429 == 0);
    r.note("**achieved / configured** is the calls' arrival rate at the provider ((n − 1) "
        + "intervals over the span from the first to the last arrival in the window) over the "
        + "configured rate.");
    r.note("**p50 / p99 gap** are the intervals between consecutive arrivals (all dispatchers' "
        + "calls together), next to the nominal 1/rate: the p99 shows the jitter of timers, the "
        + "HTTP client and loopback between a slot and its call's arrival.");
    r.note("**max calls in any 1 s** slides a one-second window over every arrival of the run "
        + "(start included); **429s** are the provider's refusals under its own limit of "
        + "⌈1.04 · rate⌉ calls in any second, with no burst tolerance.");
    r.note("The provider runs in the bench's JVM (it shares its collector pauses with the "
        + "dispatchers); the dispatchers run in that JVM too, as instances of one group. The "
        + "single-instance case shows one lane's own pacing: it holds every slot of the leak.");
    return r;
  }
}
