package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ProviderLimit;
import io.sluice.config.ProviderLimit.Kind;
import io.sluice.config.ProviderLimit.Window;
import java.util.ArrayList;
import java.util.List;

/** The bound of each limit, checked on granted slots ({@code {slotMicros, cost}}) in every window. */
final class LimitBounds {
  private LimitBounds() {}

  /** Slots in time order with their costs: every window of every limit within its amount. */
  static void assertEveryLimitHeld(List<long[]> slots, ProviderLimits limits) {
    List<long[]> sorted = new ArrayList<>(slots);
    sorted.sort((x, y) -> Long.compare(x[0], y[0]));
    for (int i = 1; i < sorted.size(); i++) {
      assertTrue(sorted.get(i)[0] - sorted.get(i - 1)[0] >= 1e6 / limits.ratePerSecond(),
          "slots at least 1/rate apart");
    }
    for (ProviderLimit l : limits.beyondRate()) {
      if (l.kind() == Kind.CONCURRENCY) {
        continue;
      }
      long per = WindowLedger.perMicros(l);
      long margin = WindowLedger.marginMicros(l);
      java.util.Map<Long, Long> fixed = new java.util.HashMap<>();
      for (long[] s : sorted) {
        long w = l.kind() == Kind.COST ? s[1] : 1;
        if (l.window() == Window.SLIDING) {
          long sum = 0;
          for (long[] o : sorted) {
            if (o[0] > s[0] - per - margin && o[0] <= s[0]) {
              sum += l.kind() == Kind.COST ? o[1] : 1;
            }
          }
          assertTrue(sum <= l.amount(), sum + " in the window ending at " + s[0] + " of " + l);
        } else {
          fixed.merge(Math.floorDiv(s[0], per), w, Long::sum);
          if (Math.floorDiv(s[0] + margin, per) != Math.floorDiv(s[0], per)) {
            fixed.merge(Math.floorDiv(s[0] + margin, per), w, Long::sum);
          }
        }
      }
      fixed.forEach((k, sum) -> assertTrue(sum <= l.amount(), sum + " in window " + k + " of " + l));
    }
  }
}
