package io.sluice.dispatcher.dispatch.lane;

import static io.sluice.dispatcher.dispatch.lane.LaneEntries.entry;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which of a lane's entries wait in Kafka, and how long: on a clock passed in. */
class LaneParkingTest {
  private static final long S = TimeUnit.SECONDS.toNanos(1);
  private static final long NOW = 1_000 * S;
  private static final DoubleSupplier ONE_PER_SECOND = () -> 1.0;
  private final LaneQueue queue =
      new LaneQueue(Map.of("std", 1.0), 10, new LaneSchedule(1.0, 4, 0));
  private final LaneParking parking = new LaneParking(queue);

  @Test
  @DisplayName("a lane that may call within the keep keeps its queue, and its rate is not asked")
  void shouldTrimNothingFromALaneThatMayCallSoon() {
    offer(5);
    DoubleSupplier unasked = () -> {
      throw new AssertionError("the rate may refresh learned limits: asked only when trimming");
    };

    assertEquals(List.of(), parking.trim(NOW, unasked, NOW + S, S));
    assertEquals(5, queue.size());
  }

  @Test
  @DisplayName("a lane held 60 s keeps its first entry; the rest wait their turns after the hold")
  void shouldParkAllButTheFirstBehindTheHold() {
    offer(5);

    List<ParkedEntry> parked = parking.trim(NOW, ONE_PER_SECOND, NOW + 60 * S, S);

    assertEquals(List.of("e1", "e2", "e3", "e4"),
        parked.stream().map(p -> p.entry().event().id()).toList());
    assertEquals(List.of(61 * S, 62 * S, 63 * S, 64 * S),
        parked.stream().map(ParkedEntry::waitNanos).toList());
    assertEquals(1, queue.size(), "the next call, or the probe");
  }

  @Test
  @DisplayName("an entry turned away waits behind what is queued and behind the last one parked")
  void shouldParkAnEntryTurnedAwayBehindTheQueueAndTheTail() {
    offer(3);

    assertEquals(3 * S, parking.parkNanos(NOW, 1.0, 0, false));
    assertEquals(4 * S, parking.parkNanos(NOW, 1.0, 0, false), "behind the first turned away");
    assertEquals(3 * S, parking.parkNanos(NOW, 1.0, 0, true), "back from a park: behind the queue only");
  }

  private void offer(int entries) {
    for (int i = 0; i < entries; i++) {
      queue.offer(entry("e" + i, 1), 0);
    }
  }
}
