package io.sluice.dispatcher.dispatch.lane;

import static io.sluice.dispatcher.dispatch.lane.LaneEntries.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A settlement's orders, carried out on the lane in the order given. */
class LaneOrderTest {
  private final List<String> done = new ArrayList<>();
  private final LaneOrder.Target lane = new LaneOrder.Target() {
    @Override
    public void throttle(long millis, long claimedAtMicros) {
      done.add("throttle " + millis + " claimed at " + claimedAtMicros);
    }

    @Override
    public void hold(long millis) {
      done.add("hold " + millis);
    }

    @Override
    public List<DispatchEntry> drop(Predicate<DispatchEntry> which) {
      List<DispatchEntry> queued = List.of(entry("a", 1), entry("b", 1));
      done.add("drop");
      return queued.stream().filter(which).toList();
    }
  };

  @Test
  @DisplayName("throttle, hold and drop are carried out in order; a drop hands every queued entry on")
  void shouldCarryOutEveryOrderInItsOrder() {
    List<String> dropped = new ArrayList<>();

    LaneOrder.carryOut(List.of(new LaneOrder.Hold(500), new LaneOrder.Throttle(2_000, 77),
        new LaneOrder.DropQueued(e -> dropped.add(e.event().id()))), lane);

    assertEquals(List.of("hold 500", "throttle 2000 claimed at 77", "drop"), done);
    assertEquals(List.of("a", "b"), dropped);
  }
}
