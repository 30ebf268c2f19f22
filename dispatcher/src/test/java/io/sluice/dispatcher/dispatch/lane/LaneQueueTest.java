package io.sluice.dispatcher.dispatch.lane;

import static io.sluice.dispatcher.dispatch.lane.LaneEntries.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.schemas.event.Priority;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A lane's queue keeps its schedule's count of queued costs exact, however an entry leaves. */
class LaneQueueTest {
  private final LaneSchedule schedule = new LaneSchedule(10.0, 4, 0);
  private final LaneQueue queue = new LaneQueue(Map.of("std", 1.0), 3, schedule);

  @Test
  @DisplayName("the schedule holds the dearest cost queued until that entry leaves by any way out")
  void shouldTellTheScheduleOfEveryEntryThatLeaves() {
    queue.offer(entry("cheap", 1), 0);
    queue.offer(entry("dear", 5), 0);
    assertTrue(schedule.holdsCostAbove(1));

    queue.removeIf(e -> e.event().cost() == 5);

    assertFalse(schedule.holdsCostAbove(1));
    queue.poll();
    assertFalse(schedule.holdsCostAbove(0), "nothing queued");
  }

  @Test
  @DisplayName("a full buffer evicts the entry served last; the schedule no longer counts it")
  void shouldForgetTheEvictedEntry() {
    queue.offer(entry("a", 1), 0);
    queue.offer(entry("b", 1), 0);
    queue.offer(entry("c", 1), 0);

    Optional<DispatchEntry> evicted = queue.offer(entry("dear", 5), 0);

    assertEquals("dear", evicted.orElseThrow().event().id());
    assertFalse(schedule.holdsCostAbove(1));
  }

  @Test
  @DisplayName("keeping the first k takes out the rest, in the order they would have been served")
  void shouldKeepTheFirstAndReturnTheRestInServingOrder() {
    queue.offer(entry("a", 1), 0);
    queue.offer(entry("b", 1), 0);
    queue.offer(entry("c", 1), 0);

    List<DispatchEntry> out = queue.keepFirst(1);

    assertEquals(List.of("b", "c"), out.stream().map(e -> e.event().id()).toList());
    assertEquals("a", queue.peek().orElseThrow().event().id());
    assertEquals(1, queue.size());
  }

  @Test
  @DisplayName("a reload's weights are the configured ones; a share's weights do not replace them")
  void shouldKeepTheConfiguredWeightsApartFromAShare() {
    queue.weighBy(Map.of("std", 3.0));
    queue.reweigh(Map.of("std", 2.0));
    queue.weighBy(Map.of("std", 5.0));

    assertEquals(Map.of("std", 2.0), queue.configuredWeights());
  }

  @Test
  @DisplayName("a tenant's high event queued after its lows is served first; a full buffer evicts its newest low")
  void shouldServeAHighFirstAndEvictALow() {
    queue.offer(entry("low1", "t", 1, Priority.LOW), 0);
    queue.offer(entry("low2", "t", 1, Priority.LOW), 1);
    queue.offer(entry("other", "u", 1, null), 2);

    Optional<DispatchEntry> evicted = queue.offer(entry("high", "t", 1, Priority.HIGH), 3);

    assertEquals("low2", evicted.orElseThrow().event().id());
    assertEquals(List.of("high", "other", "low1"),
        List.of(queue.poll(), queue.poll(), queue.poll()).stream()
            .map(e -> e.orElseThrow().event().id()).toList());
  }
}
