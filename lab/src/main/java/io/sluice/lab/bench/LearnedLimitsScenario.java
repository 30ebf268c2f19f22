package io.sluice.lab.bench;

import io.sluice.embedded.mock.LimitReplay;
import io.sluice.embedded.mock.MockProvider;
import io.sluice.embedded.mock.ProviderWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Issue 12's "done when": a strict provider enforcing 20 calls/s, 600 calls per sliding minute and
 * 5,000 cost units per sliding minute, announcing them ONLY in its response headers, against
 * Sluice configured generously (100 calls/s, no windows). Sluice must converge with at most one
 * 429 per limit and then sustain at least 95% of the binding limit's allowance with no 429.
 *
 * <p>Three runs, one per header family: IETF ({@code RateLimit-Policy}/{@code RateLimit}) with
 * events of cost 10, so the cost limit binds (8.3 calls/s against 10/s for the call window), and
 * {@code X-RateLimit-*-Requests/-Tokens} (which announce only the longest window per unit) with
 * events of cost 5, so the call window binds (10 calls/s against 16.7/s for cost), and the
 * period family ({@code X-RateLimit-Limit-Second}, {@code -Minute}; cost by {@code -Tokens}), which
 * states all three limits, with events of cost 1 (the call window binds). Each call
 * carries its event's cost as {@code Sluice-Cost}, which the provider counts. Two dispatcher instances share the leak and the learned limits through Redis.
 */
final class LearnedLimitsScenario implements BenchScenario {
  static final List<ProviderWindow> LIMITS = List.of(
      ProviderWindow.calls(20, Duration.ofSeconds(1)),
      ProviderWindow.calls(600, Duration.ofSeconds(60)),
      ProviderWindow.cost(5000, Duration.ofSeconds(60)));
  /** From the first call to the start of the measured span: the convergence, generously. */
  static final long SETTLE_NANOS = 2_000_000_000L;
  /**
   * The same for {@code --quick}, whose figures only need to exist: in CI's runs the three
   * families' limits were learned within the first second, with no 429 at all.
   */
  static final long QUICK_SETTLE_NANOS = 1_000_000_000L;

  private record Run(MockProvider.Announce announce, int cost) {}

  @Override
  public String name() {
    return "learned-limits";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(),
        "limits learned from response headers (issue 12's done-when)");
    double span = ctx.quick() ? 1 : 75;
    long settle = ctx.quick() ? QUICK_SETTLE_NANOS : SETTLE_NANOS;
    long allTooMany = 0;
    long afterConvergence = 0;
    int worstPerLimit = 0;
    double worstBinding = Double.MAX_VALUE;
    for (Run run : List.of(new Run(MockProvider.Announce.IETF, 10),
        new Run(MockProvider.Announce.X_RATELIMIT, 5),
        new Run(MockProvider.Announce.X_RATELIMIT_PERIODS, 1))) {
      try (MockProvider mock = MockProvider.start(LIMITS, run.announce(), Duration.ZERO)) {
        // The provider's binding limit (5,000 cost a minute at cost 10: 8.3 calls/s) is below the
        // default floor of a tenth of the 100/s configured; a floor of 0.05 lets learning show it.
        BenchConfig spec = new BenchConfig().provider(mock.url().toString(), 100).maxCost(10)
            .learnedFloor(0.05);
        try (BenchPipeline p = BenchPipeline.start(ctx, spec, 4, true, 2);
            EventLoad load = new EventLoad(p.config, true)) {
          ProviderRun.warmUp(p.config, mock);
          String prefix = BenchContext.unique("k");
          long events = (long) Math.ceil(10.5 * (span + 15));
          for (long i = 0; i < events; i++) {
            load.send(prefix + "-" + (i % 10), run.cost());
          }
          load.flush();
          BenchPipeline.await(() -> mock.callCount() > 0, Duration.ofSeconds(60), "a first call");
          long first = mock.calls().get(0).atNanos();
          long from = first + settle;
          long to = from + (long) (span * 1e9);
          BenchPipeline.await(() -> System.nanoTime() > to + 200_000_000L,
              Duration.ofSeconds((long) span + 30), "the end of the span");
          List<LimitReplay.Arrival> arrivals = new ArrayList<>();
          for (MockProvider.Call c : mock.calls()) {
            arrivals.add(new LimitReplay.Arrival(c.atNanos(), c.status(), c.cost()));
          }
          List<LimitReplay.PerLimit> per = LimitReplay.replay(LIMITS, arrivals, from, to);
          ProviderWindow binding = LimitReplay.binding(LIMITS, run.cost());
          long tooMany = arrivals.stream().filter(a -> a.status() == 429).count();
          long late = arrivals.stream().filter(a -> a.status() == 429 && a.atNanos() >= from)
              .count();
          allTooMany += tooMany;
          afterConvergence += late;
          String family = run.announce().name().toLowerCase(Locale.ROOT).replace('_', '-');
          for (LimitReplay.PerLimit l : per) {
            worstPerLimit = Math.max(worstPerLimit, l.refusalsBreakingIt());
            if (l.limit().equals(binding)) {
              worstBinding = Math.min(worstBinding, l.ofAllowance());
            }
            String label = String.format(Locale.ROOT, "%s, cost %d: %s %d/%ds%s", family,
                run.cost(), l.limit().unit() == ProviderWindow.Unit.COST ? "cost" : "calls",
                l.limit().amount(), l.limit().window().toSeconds(),
                l.limit().equals(binding) ? " (binds)" : "");
            r.row(label, "allowance /s", l.allowancePerSecond(),
                "achieved /s", l.acceptedPerSecond(), "of allowance", l.ofAllowance(),
                "max in any window", l.maxInAnyWindow(),
                "429s breaking it", (long) l.refusalsBreakingIt());
            ctx.progress("learned-limits: %s", String.format(Locale.ROOT,
                "%s: %.2f/s of %.2f/s (%.1f%%), max %d in a window, %d 429s", label,
                l.acceptedPerSecond(), l.allowancePerSecond(), 100 * l.ofAllowance(),
                l.maxInAnyWindow(), l.refusalsBreakingIt()));
          }
          r.row(String.format(Locale.ROOT, "%s, cost %d: all calls", family, run.cost()),
              "calls", (long) arrivals.size(), "429s", tooMany,
              "429s after convergence", late);
        }
      }
    }
    r.target("429s per limit while converging", "at most 1",
        "at most " + worstPerLimit, worstPerLimit <= 1);
    r.target("429s after convergence", "0", Long.toString(afterConvergence),
        afterConvergence == 0);
    r.target("binding limit: achieved / allowance after convergence", "≥ 95%",
        String.format(Locale.ROOT, "worst %.1f%%", 100 * worstBinding), worstBinding >= 0.95);
    r.note(String.format(Locale.ROOT, "The provider (in the bench's JVM) enforces 20 calls in any "
        + "sliding second, 600 calls and 5,000 cost units in any sliding minute, on arrival "
        + "times, and says so only in its answers' headers. Sluice is configured at 100 calls/s "
        + "with no windows. The span measured starts %d s after the first call (convergence) "
        + "and lasts %.0f s; **achieved /s** is the units the provider accepted in it per second, "
        + "**of allowance** that over the limit's amount per second; **max in any window** slides "
        + "the limit's window over every accepted call of the run; **429s breaking it** replays "
        + "each refused call against that limit. %d 429s in all.", settle / 1_000_000_000L,
        span, allTooMany));
    return r;
  }
}
