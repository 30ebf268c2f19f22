package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.lab.chaos.ArrivalFigures.Arrival;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArrivalFiguresTest {
  @Test
  void duplicatesAreSuccessesBeyondTheFirstPerId() {
    ArrivalFigures.Figures f = ArrivalFigures.of(List.of(
        new Arrival(0, "p", "a", 200, false),
        new Arrival(10, "p", "a", 200, false),
        new Arrival(20, "p", "a", 200, false),
        new Arrival(30, "p", "b", 500, false),
        new Arrival(40, "p", "b", 200, false),
        new Arrival(50, "p", "c", Arrival.HUNG, false),
        new Arrival(60, "p", "c", 200, false)));
    assertEquals(2, f.duplicates());
    assertEquals(3, f.idsDelivered());
    assertEquals(3, f.maxDeliveriesOfOneId());
  }

  @Test
  void theLongestGapIsOverAllProvidersAndPerProvider() {
    ArrivalFigures.Figures f = ArrivalFigures.of(List.of(
        new Arrival(1000, "p", "a", 200, false),
        new Arrival(1100, "q", "b", 200, false),
        new Arrival(4100, "p", "c", 200, false),
        new Arrival(4200, "q", "d", 200, false)));
    assertEquals(new ArrivalFigures.Gap(3000, 1100), f.longestGap());
    assertEquals(3100, f.longestGapByProvider().get("p").millis());
    assertEquals(3100, f.longestGapByProvider().get("q").millis());
  }

  @Test
  void tooManyOutsideTheStormAreCountedPerProvider() {
    ArrivalFigures.Figures f = ArrivalFigures.of(List.of(
        new Arrival(0, "p", "a", 429, true),
        new Arrival(1, "p", "a", 429, false),
        new Arrival(2, "q", "b", 200, false)));
    assertEquals(Map.of("p", 1L, "q", 0L), f.tooManyOutsideStorm());
    assertEquals(1, f.stormAnswers());
  }
}
