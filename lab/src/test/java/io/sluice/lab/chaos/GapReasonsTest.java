package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.lab.chaos.ArrivalFigures.Arrival;
import io.sluice.lab.chaos.GapReasons.GapFigure;
import io.sluice.lab.chaos.GapReasons.Mark;
import io.sluice.lab.chaos.GapReasons.Place;
import io.sluice.lab.chaos.GapReasons.Window;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What the events waiting through a long gap without calls waited for. */
class GapReasonsTest {
  private static final long LOAD = 1_000_000;

  private static Arrival ok(long at, String id) {
    return new Arrival(LOAD + at, "p", id, 200, false);
  }

  private static Mark mark(Place place, long at) {
    return new Mark(place, LOAD + at, 0);
  }

  @Test
  @DisplayName("a gap of 10 s or less is not listed")
  void shortGapsAreNotListed() {
    List<Arrival> calls = List.of(ok(0, "a"), ok(10_000, "b"), ok(20_000, "c"));
    assertEquals(List.of(), GapReasons.of(calls, Map.of(), List.of(), LOAD));
  }

  @Test
  @DisplayName("each event waiting through a 30 s gap is put down to where it was when the calls resumed")
  void eachWaitingEventHasAReason() {
    // Calls at 0 s and at 30 s (those resume), nothing between.
    List<Arrival> calls = List.of(ok(0, "done"), ok(30_000, "quota"), ok(31_000, "step"),
        ok(32_000, "relay"), ok(33_000, "ready"), ok(34_000, "later"));
    Map<String, List<Mark>> marks = Map.of(
        "done", List.of(mark(Place.INBOUND, -1_000), mark(Place.READY, -500)),
        // Its ready record is stamped after the gap's end: a paid record, due at 30.5 s.
        "quota", List.of(mark(Place.INBOUND, 1_000), mark(Place.READY, 30_500)),
        "step", List.of(mark(Place.INBOUND, 1_000), mark(Place.READY, 1_200),
            new Mark(Place.DELAY, LOAD + 2_000, LOAD + 32_000), mark(Place.READY, 31_000)),
        "relay", List.of(mark(Place.INBOUND, 1_000), mark(Place.READY, 1_200),
            new Mark(Place.DELAY, LOAD + 2_000, LOAD + 3_000), mark(Place.READY, 31_500)),
        "ready", List.of(mark(Place.INBOUND, 1_000), mark(Place.READY, 1_500)),
        // Produced after the gap: not waiting through it.
        "later", List.of(mark(Place.INBOUND, 30_100), mark(Place.READY, 30_200)));
    List<GapFigure> gaps = GapReasons.of(calls, marks, List.of(), LOAD);
    assertEquals(1, gaps.size());
    GapFigure g = gaps.get(0);
    assertEquals(0.0, g.fromSecond());
    assertEquals(30.0, g.seconds());
    assertEquals(4, g.waiting());
    assertEquals(Map.of(GapReasons.AT_GATE, 1L, GapReasons.DELAY_STEP, 1L, GapReasons.RELAY, 1L,
        GapReasons.NOTHING, 1L), g.waitingFor());
  }

  @Test
  @DisplayName("events in ready through a gap that a fault overlaps are put down to that fault")
  void faultsOverlappingTheGapExplainEventsInReady() {
    List<Arrival> calls = List.of(ok(0, "x"), ok(25_000, "ready"));
    Map<String, List<Mark>> marks = Map.of(
        "ready", List.of(mark(Place.INBOUND, 100), mark(Place.READY, 200)));
    List<Window> faults = List.of(new Window(LOAD + 5_000, LOAD + 12_000, "Redis away (circuits, leak)"),
        new Window(LOAD + 40_000, LOAD + 50_000, "the broker away"));
    GapFigure g = GapReasons.of(calls, marks, faults, LOAD).get(0);
    assertEquals(List.of("Redis away (circuits, leak)"), g.faultsDuring(), "only what overlaps");
    assertEquals(Map.of(GapReasons.IN_READY + "Redis away (circuits, leak)", 1L), g.waitingFor());
  }

  @Test
  @DisplayName("after the faults, a gap with an overflow back past its end fails the run; a parked one does not")
  void anOverflowWaitingPastItsTurnAfterTheFaultsIsIdleWithoutAReason() {
    // Calls at 0 s and 30 s; the faults were over at 0 s.
    List<Arrival> calls = List.of(ok(0, "x"), ok(30_000, "overflow"), ok(30_500, "parked"));
    Map<String, List<Mark>> overflow = Map.of("overflow", List.of(mark(Place.INBOUND, 100),
        mark(Place.READY, 200), new Mark(Place.DELAY, LOAD + 300, LOAD + 30_000, "overflow")));
    Map<String, List<Mark>> parked = Map.of("parked", List.of(mark(Place.INBOUND, 100),
        mark(Place.READY, 200), new Mark(Place.DELAY, LOAD + 300, LOAD + 30_000, "parked")));

    List<GapFigure> withOverflow = GapReasons.of(calls, overflow, List.of(), LOAD);
    assertEquals(Map.of(GapReasons.DELAY_OVERFLOW, 1L), withOverflow.get(0).waitingFor());
    assertEquals(withOverflow, GapReasons.idleWithoutReason(withOverflow, 0.0));
    assertEquals(List.of(), GapReasons.idleWithoutReason(withOverflow, 5.0),
        "a gap that began during the faults is theirs");

    List<GapFigure> withParked = GapReasons.of(calls, parked, List.of(), LOAD);
    assertEquals(Map.of(GapReasons.DELAY_STEP, 1L), withParked.get(0).waitingFor());
    assertEquals(List.of(), GapReasons.idleWithoutReason(withParked, 0.0),
        "parked for a hold, a pause or a disabled endpoint: a reason status shows");
    assertEquals(1, ChaosReport.judge(0, List.of(), true,
        GapReasons.idleWithoutReason(withOverflow, 0.0)).size(), "the run fails on it");
  }

  @Test
  @DisplayName("a provider may idle, visibly, in a fault, a hostile answer's hold, the pause while it held and the 429 storm")
  void visibleReasons() {
    Window kill = new Window(100, 900, "gate killed");
    List<Arrival> arrivals = List.of(new Arrival(5_000, "p", "a", 429, true), new Arrival(7_000, "p", "b", 429, true),
        new Arrival(8_000, "p", "c", 200, false));
    assertEquals(List.of(kill,
            new Window(2_000, 23_000, "a hostile answer's hold (maxRetryAfter) at p"),
            new Window(30_000, 40_000, "tenant pro-2 paused"),
            new Window(5_000, 8_000, "the 429 storm (Retry-After holds)")),
        GapReasons.visibleReasons(List.of(kill), Map.of("p", List.of(2_000L)), 21_000, "pro-2", 30_000, 40_000,
            arrivals));
    assertEquals(List.of(new Window(30_000, 30_000, "tenant pro-2 paused")),
        GapReasons.visibleReasons(List.of(), Map.of(), 21_000, "pro-2", 30_000, -1, List.of()),
        "a pause never resumed counts from its start only");
    assertEquals(List.of(), GapReasons.visibleReasons(List.of(), Map.of(), 21_000, "pro-2", -1, -1, List.of()),
        "a pause never set is no reason");
  }
}
