package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostileFiguresTest {
  private static ArrivalFigures.Arrival call(long at, String provider) {
    return new ArrivalFigures.Arrival(at, provider, "k" + at, 200, false);
  }

  @Test
  void shouldMeasureTheLongestWaitFromAHostileAnswerToTheNextCall() {
    Map<String, HostileFigures.Figure> figures = HostileFigures.of(
        Map.of("a", List.of(1_000L, 2_000L), "b", List.of(5_000L)),
        List.of(call(1_000, "a"), call(2_000, "a"), call(2_500, "b"), call(22_100, "a"),
            call(5_000, "b")));
    assertEquals(new HostileFigures.Figure(2, 20_100), figures.get("a"),
        "from the answer at 2.0 s to the call at 22.1 s; the call at 2.0 s itself does not count");
    assertEquals(new HostileFigures.Figure(1, -1), figures.get("b"), "no call after it: never");
  }

  @Test
  void shouldScheduleTheHostilePhaseLateInTheLoad() {
    assertEquals(ProviderPhase.NORMAL, ProviderPhase.at(770, 1_000));
    assertEquals(ProviderPhase.HOSTILE, ProviderPhase.at(780, 1_000));
    assertEquals(ProviderPhase.HOSTILE, ProviderPhase.at(1_500, 1_000),
        "on until each provider gave its hostile answers, settling included");
  }
}
