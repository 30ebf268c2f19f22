package io.sluice.dispatcher.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.LaneId;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Lanes of tenants' endpoints live while busy: opened by the first event, retired after 30 s idle
 * here, at most 3 at once. A lane is a name; "busy" ones are not idle.
 */
class EndpointLanesTest {
  private final EndpointLanes<String> lanes = new EndpointLanes<>(3, 30_000);
  private final Set<String> busy = new HashSet<>();
  private final Predicate<String> idle = lane -> !busy.contains(lane);

  private EndpointLanes.Opened<String> open(String tenant, long now) {
    LaneId key = LaneId.endpoint("hooks", tenant);
    return lanes.open(key, now, idle, key::name);
  }

  @Test
  void shouldOpenOneLanePerEndpointOnItsFirstEventAndReuseIt() {
    EndpointLanes.Opened<String> first = open("acme", 0);
    EndpointLanes.Opened<String> again = open("acme", 5);

    assertEquals(Optional.of("hooks/acme"), first.lane());
    assertTrue(first.created());
    assertEquals(Optional.of("hooks/acme"), again.lane());
    assertFalse(again.created());
    assertEquals(1, lanes.size());
  }

  @Test
  void shouldRetireALaneIdleForIdleMillisAndNoOtherLane() {
    open("acme", 0);
    open("globex", 10_000);
    open("initech", 0);
    busy.add("hooks/initech"); // calls in flight, or events queued, or disabled

    assertEquals(List.of(), lanes.retireIdle(29_999, idle), "not idle 30 s yet");
    assertEquals(List.of("hooks/acme"), lanes.retireIdle(30_000, idle));
    assertEquals(List.of("hooks/globex"), lanes.retireIdle(40_000, idle));
    assertEquals(List.of(), lanes.retireIdle(100_000, idle), "a busy lane is never retired");
    assertEquals(Optional.of("hooks/initech"), lanes.get(LaneId.endpoint("hooks", "initech")));
  }

  @Test
  void shouldCountAUseAsWorkSoAnEndpointWithSteadyTrafficStays() {
    open("acme", 0);
    lanes.touch(LaneId.endpoint("hooks", "acme"), 25_000);

    assertEquals(List.of(), lanes.retireIdle(50_000, idle));
    assertEquals(List.of("hooks/acme"), lanes.retireIdle(55_000, idle));
  }

  @Test
  void shouldRetireTheLaneIdleTheLongestToOpenOnePastTheBound() {
    open("acme", 0);
    open("globex", 1_000);
    open("initech", 2_000);
    busy.add("hooks/acme");

    EndpointLanes.Opened<String> umbrella = open("umbrella", 3_000);

    assertEquals(Optional.of("hooks/umbrella"), umbrella.lane());
    assertEquals(Optional.of("hooks/globex"), umbrella.retired(),
        "idle the longest (acme is older, but busy)");
    assertEquals(3, lanes.size());
  }

  @Test
  void shouldGiveNoLanePastTheBoundWhenEveryLaneIsBusy() {
    open("acme", 0);
    open("globex", 0);
    open("initech", 0);
    busy.addAll(List.of("hooks/acme", "hooks/globex", "hooks/initech"));

    EndpointLanes.Opened<String> umbrella = open("umbrella", 1);

    assertTrue(umbrella.full(), "the event is deferred round the ladder, no attempt spent");
    assertEquals(Optional.empty(), lanes.get(LaneId.endpoint("hooks", "umbrella")));
    assertEquals(3, lanes.size());
  }

  @Test
  void shouldSpreadTheFirstSlotsOfLanesOpenedTogetherEvenlyOverAnInterval() {
    // A thousand endpoints at 1.92/s opened in the same instant: taken at once, their first
    // slots (and so every later one, each leak spacing its own) would come in one batch each
    // interval. Spread, every tenth of the interval holds about a tenth of them.
    long interval = 520_833_333;
    int[] tenths = new int[10];
    for (int k = 0; k < 1_000; k++) {
      long delay = EndpointLanes.firstClaimDelayNanos(k, interval);
      assertTrue(delay >= 0 && delay < interval, "lane " + k + " waits " + delay);
      tenths[(int) (delay * 10 / interval)]++;
    }
    for (int tenth : tenths) {
      assertTrue(tenth >= 95 && tenth <= 105, java.util.Arrays.toString(tenths));
    }
  }

  @Test
  void shouldNotHoldTheFirstLaneBackNorAnyMoreThanASecond() {
    assertEquals(0, EndpointLanes.firstClaimDelayNanos(0, 520_833_333));
    for (int k = 0; k < 100; k++) {
      assertTrue(EndpointLanes.firstClaimDelayNanos(k, 60_000_000_000L) < 1_000_000_000L,
          "one call a minute: lane " + k + " waits under a second");
    }
  }
}
