package io.sluice.embedded.mock;

import io.sluice.embedded.mock.ProviderWindow;
import java.util.ArrayList;
import java.util.List;

/**
 * A strict provider's limits replayed over the calls it saw: for each limit, how much was
 * accepted in a span and at most in any window, and which limits each refused call would have
 * broken. Pure: the calls are given, judged on their arrival times as the provider judged them
 * (a refused call takes nothing from any limit).
 */
public final class LimitReplay {
  /** One call as the provider saw it: arrival (nanoTime), status, cost. */
  public record Arrival(long atNanos, int status, long cost) {}

  /** What one limit saw. */
  public record PerLimit(ProviderWindow limit, double acceptedPerSecond, long maxInAnyWindow,
      int refusalsBreakingIt) {
    /** The allowance: the limit's amount per second, on average over its window. */
    public double allowancePerSecond() {
      return limit.amount() * 1e9 / limit.window().toNanos();
    }

    /** Accepted over allowance, in the span. */
    public double ofAllowance() {
      return acceptedPerSecond / allowancePerSecond();
    }
  }

  private LimitReplay() {}

  /**
   * @param arrivals every call, in arrival order
   * @param fromNanos the span measured for {@link PerLimit#acceptedPerSecond}: [from, to)
   */
  public static List<PerLimit> replay(List<ProviderWindow> limits, List<Arrival> arrivals,
      long fromNanos, long toNanos) {
    List<PerLimit> out = new ArrayList<>();
    for (ProviderWindow limit : limits) {
      long window = limit.window().toNanos();
      List<Arrival> accepted = arrivals.stream().filter(a -> a.status() / 100 == 2).toList();
      long inSpan = 0;
      long max = 0;
      long inWindow = 0;
      int tail = 0;
      for (Arrival a : accepted) {
        while (accepted.get(tail).atNanos() <= a.atNanos() - window) {
          inWindow -= weight(limit, accepted.get(tail++));
        }
        inWindow += weight(limit, a);
        max = Math.max(max, inWindow);
        if (a.atNanos() >= fromNanos && a.atNanos() < toNanos) {
          inSpan += weight(limit, a);
        }
      }
      int breaking = 0;
      for (Arrival refused : arrivals) {
        if (refused.status() != 429) {
          continue;
        }
        long used = 0;
        for (Arrival a : accepted) {
          if (a.atNanos() > refused.atNanos() - window && a.atNanos() <= refused.atNanos()) {
            used += weight(limit, a);
          }
        }
        if (used + weight(limit, refused) > limit.amount()) {
          breaking++;
        }
      }
      out.add(new PerLimit(limit, inSpan * 1e9 / (toNanos - fromNanos), max, breaking));
    }
    return out;
  }

  private static long weight(ProviderWindow limit, Arrival a) {
    return limit.unit() == ProviderWindow.Unit.COST ? a.cost() : 1;
  }

  /** The limit that binds a steady flow of calls of this cost: the smallest pace. */
  public static ProviderWindow binding(List<ProviderWindow> limits, long cost) {
    ProviderWindow tightest = null;
    double pace = Double.MAX_VALUE;
    for (ProviderWindow l : limits) {
      double callsPerSecond = l.amount() * 1e9 / l.window().toNanos()
          / (l.unit() == ProviderWindow.Unit.COST ? cost : 1);
      if (callsPerSecond < pace) {
        pace = callsPerSecond;
        tightest = l;
      }
    }
    return tightest;
  }
}
