package io.sluice.embedded.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.embedded.mock.ProviderWindow;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A strict provider's limits replayed over the calls it saw. */
class LimitReplayTest {
  private static final long S = 1_000_000_000L;
  private static final ProviderWindow TWO_PER_SECOND = ProviderWindow.calls(2, Duration.ofSeconds(1));
  private static final ProviderWindow COST_25 = ProviderWindow.cost(25, Duration.ofSeconds(10));

  private static LimitReplay.Arrival ok(double seconds, long cost) {
    return new LimitReplay.Arrival((long) (seconds * S), 200, cost);
  }

  private static LimitReplay.Arrival refused(double seconds, long cost) {
    return new LimitReplay.Arrival((long) (seconds * S), 429, cost);
  }

  @Test
  @DisplayName("accepted units per second in the span, most in any window, and which limit each 429 broke")
  void replay() {
    List<LimitReplay.Arrival> calls = List.of(ok(0, 10), ok(0.5, 10), refused(0.9, 10),
        ok(1.0, 5), refused(1.2, 10), ok(1.6, 1));
    List<LimitReplay.PerLimit> per = LimitReplay.replay(List.of(TWO_PER_SECOND, COST_25), calls,
        0, 2 * S);
    assertEquals(2.0, per.get(0).acceptedPerSecond(), 1e-9);
    assertEquals(2, per.get(0).maxInAnyWindow(), "0.5 and 1.0 share a window; 0 has left it");
    assertEquals(2, per.get(0).refusalsBreakingIt(), "at 0.9 (0 and 0.5 in its second) and at 1.2 (0.5 and 1.0)");
    assertEquals(13.0, per.get(1).acceptedPerSecond(), 1e-9);
    assertEquals(26, per.get(1).maxInAnyWindow());
    assertEquals(2, per.get(1).refusalsBreakingIt(), "20 + 10 and 25 + 10 are both above 25");
    assertEquals(1.0, per.get(0).ofAllowance(), 1e-9);
  }

  @Test
  @DisplayName("the binding limit is the one with the slowest pace for calls of that cost")
  void binding() {
    List<ProviderWindow> limits = List.of(ProviderWindow.calls(20, Duration.ofSeconds(1)),
        ProviderWindow.calls(600, Duration.ofMinutes(1)),
        ProviderWindow.cost(5000, Duration.ofMinutes(1)));
    assertEquals(limits.get(2), LimitReplay.binding(limits, 10));
    assertEquals(limits.get(1), LimitReplay.binding(limits, 5));
  }
}
