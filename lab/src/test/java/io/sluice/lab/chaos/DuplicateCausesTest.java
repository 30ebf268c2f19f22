package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.lab.chaos.ArrivalFigures.Arrival;
import io.sluice.lab.chaos.DuplicateCauses.Attribution;
import io.sluice.lab.chaos.DuplicateCauses.Fault;
import io.sluice.lab.chaos.DuplicateCauses.ReadyCopies;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DuplicateCausesTest {
  private static final List<Fault> FAULTS = List.of(
      new Fault(1000, "1.0 s KILL_ROLE relay", false), new Fault(5000, "5.0 s KILL_ROLE dispatch-a", true));
  private static final long TIMEOUT = 2000;

  @Test
  void aDuplicateWithIdenticalReadyCopiesIsPutDownToWhoReleasedThem() {
    Attribution a = DuplicateCauses.of(List.of(
            new Arrival(1500, "p", "r", 200, false), new Arrival(1600, "p", "r", 200, false),
            new Arrival(1700, "p", "g", 200, false), new Arrival(1800, "p", "g", 200, false)),
        Map.of("r", new ReadyCopies(1, 0), "g", new ReadyCopies(0, 1)), Set.of(), FAULTS, TIMEOUT);
    assertEquals(Map.of(DuplicateCauses.RELAY_TWICE, 1L, DuplicateCauses.GATE_TWICE, 1L),
        a.byCause());
    assertEquals(Map.of("1.0 s KILL_ROLE relay", 2L), a.byPrecedingFault());
  }

  @Test
  void whatTheCopiesDoNotExplainIsTheDispatchers() {
    Attribution a = DuplicateCauses.of(List.of(
            new Arrival(500, "p", "x", 200, false), new Arrival(5200, "p", "x", 200, false),
            new Arrival(5300, "p", "x", 200, false), new Arrival(5400, "p", "x", 500, false)),
        Map.of("x", new ReadyCopies(1, 0)), Set.of(), FAULTS, TIMEOUT);
    assertEquals(Map.of(DuplicateCauses.RELAY_TWICE, 1L, DuplicateCauses.DISPATCHER_AGAIN, 1L),
        a.byCause());
    assertEquals(Map.of("5.0 s KILL_ROLE dispatch-a", 2L), a.byPrecedingFault());
  }

  @Test
  void aCallMadeJustBeforeADispatchersKillWasInFlight() {
    Attribution a = DuplicateCauses.of(List.of(
            new Arrival(4500, "p", "w", 200, false), new Arrival(5600, "p", "w", 200, false)),
        Map.of(), Set.of(), FAULTS, TIMEOUT);
    assertEquals(Map.of(DuplicateCauses.IN_FLIGHT_AT_KILL, 1L), a.byCause());
  }

  @Test
  void aCallAnswered500JustBeforeADispatchersKillWasInFlightThoughItsFirst2xxCameLater() {
    // 4.8 s: answered 500, deferred; the kill at 5 s takes the deferral's commit and settled mark
    // with it, so the next owner calls the record again (200 at 7 s) while the deferred copy comes
    // back and is delivered too (9 s).
    Attribution a = DuplicateCauses.of(List.of(
            new Arrival(4800, "p", "u", 500, false), new Arrival(7000, "p", "u", 200, false),
            new Arrival(9000, "p", "u", 200, false)),
        Map.of(), Set.of(), FAULTS, TIMEOUT);
    assertEquals(Map.of(DuplicateCauses.IN_FLIGHT_AT_KILL, 1L), a.byCause());
  }

  @Test
  void aCallInFlightAtAKillStaysSoWhateverFaultCameBetween() {
    List<Fault> faults = List.of(new Fault(5000, "5.0 s KILL_ROLE dispatch-a", true),
        new Fault(7000, "7.0 s RESTART_REDIS redis", false));
    Attribution a = DuplicateCauses.of(List.of(
            new Arrival(5100, "p", "v", 200, false), new Arrival(9000, "p", "v", 200, false)),
        Map.of(), Set.of(), faults, TIMEOUT);
    assertEquals(Map.of(DuplicateCauses.IN_FLIGHT_AT_KILL, 1L), a.byCause(), "arrived 100 ms after the kill: sent before");
    assertEquals(Map.of("7.0 s RESTART_REDIS redis", 1L), a.byPrecedingFault());
  }

  @Test
  void theProducersOwnDuplicateComesFirstAndOneDeliveryIsNoDuplicate() {
    Attribution a = DuplicateCauses.of(List.of(
            new Arrival(100, "p", "y", 200, false), new Arrival(200, "p", "y", 200, false),
            new Arrival(300, "p", "z", 200, false)),
        Map.of(), Set.of("y", "z"), FAULTS, TIMEOUT);
    assertEquals(Map.of(DuplicateCauses.PRODUCED_TWICE, 1L), a.byCause());
    assertEquals(Map.of(DuplicateCauses.NO_FAULT_BEFORE, 1L), a.byPrecedingFault());
  }
}
