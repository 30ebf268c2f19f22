package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.lab.chaos.ArrivalFigures.Arrival;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a chaos run's paused tenant and dead endpoint got, and when that fails the run. */
class IsolationFiguresTest {
  private static final long LOAD = 1_000_000;
  private static final IsolationFigures.Window PAUSED = new IsolationFigures.Window(LOAD + 10_000, LOAD + 20_000);
  private static final IsolationFigures.Window DEAD = new IsolationFigures.Window(LOAD + 5_000, LOAD + 15_000);
  private static final Map<String, String> DESTINATIONS = Map.of(
      "e1", "pro-2/p-open", "e2", "pro-2/p-hooks", "e3", "free-4/p-hooks", "e4", "free-4/p-open",
      "e5", "ent-1/p-open");

  private static Map<String, Object> figures(Arrival... arrivals) {
    return IsolationFigures.of(List.of(arrivals), DESTINATIONS, "pro-2", PAUSED, "free-4",
        "p-hooks", DEAD, LOAD);
  }

  @Test
  void shouldFailARunWhosePausedTenantIsCalledPastTheGraceOfItsPause() {
    Map<String, Object> f = figures(
        new Arrival(LOAD + 10_500, "p-open", "e1", 200, false), // in flight as the pause came
        new Arrival(LOAD + 12_500, "p-hooks", "e2", 200, false), // paused: a failure
        new Arrival(LOAD + 20_000, "p-open", "e1", 200, false), // resumed
        new Arrival(LOAD + 13_000, "p-open", "e5", 200, false)); // another tenant
    assertEquals(1L, f.get("callsWhilePaused"));
    assertEquals(List.of("the paused tenant pro-2 was called 1 times while paused"),
        IsolationFigures.failures(f));
  }

  @Test
  void shouldPassARunWhosePausedTenantWaitsAndWhoseDeadEndpointIsDeliveredOnceMended() {
    Map<String, Object> f = figures(
        new Arrival(LOAD + 6_000, "p-hooks", "e3", 503, false),
        new Arrival(LOAD + 9_000, "p-hooks", "e3", 503, false),
        new Arrival(LOAD + 9_500, "p-open", "e4", 200, false), // the tenant's other providers go on
        new Arrival(LOAD + 17_000, "p-hooks", "e3", 200, false));
    assertEquals(2L, f.get("deadAnswers"));
    assertEquals(1L, f.get("deadEndpointEvents"));
    assertEquals(1L, f.get("deadEndpointDeliveredAfterMend"));
    assertEquals(2.0, f.get("firstDeliveryAfterMendSeconds"));
    assertEquals(List.of(), IsolationFigures.failures(f));
  }

  @Test
  void shouldFailARunWhoseDeadEndpointIsNeverDeliveredOnceMended() {
    Map<String, Object> f = figures(new Arrival(LOAD + 6_000, "p-hooks", "e3", 503, false));
    assertEquals(List.of("the dead endpoint free-4/p-hooks was never called successfully once "
        + "mended"), IsolationFigures.failures(f));
  }

  @Test
  void shouldFailARunWhosePauseCouldNotBeSet() {
    Map<String, Object> f = IsolationFigures.of(List.of(
        new Arrival(LOAD + 12_500, "p-hooks", "e2", 200, false)), DESTINATIONS, "pro-2",
        new IsolationFigures.Window(-1, Long.MAX_VALUE), "free-4", "p-hooks", DEAD, LOAD);
    assertEquals(List.of("the pause of pro-2 could not be set"), IsolationFigures.failures(f));
    assertEquals(0L, f.get("callsWhilePaused"), "never paused: no call counted against it");
  }
}
