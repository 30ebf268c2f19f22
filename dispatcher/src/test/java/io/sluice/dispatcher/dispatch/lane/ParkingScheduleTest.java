package io.sluice.dispatcher.dispatch.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** When a parked entry comes back, and what a lane keeps in memory: on a clock passed in. */
class ParkingScheduleTest {
  private static final long S = TimeUnit.SECONDS.toNanos(1);
  private static final long NOW = 1_000 * S;
  private final ParkingSchedule schedule = new ParkingSchedule();

  @Test
  @DisplayName("an entry behind 16 queued at 2/s comes back 8 s later, when they have gone")
  void shouldReturnAnEntryWhenTheEntriesAheadOfItHaveGoneAtThePacedRate() {
    assertEquals(NOW + 8 * S, schedule.park(NOW, 16, 2.0, 0));
  }

  @Test
  @DisplayName("entries parked one after another come back one interval apart, behind the tail")
  void shouldSpaceEntriesParkedTogetherOneIntervalApart() {
    long first = schedule.park(NOW, 8, 2.0, 0);
    long second = schedule.park(NOW, 8, 2.0, 0);
    long third = schedule.park(NOW + S, 8, 2.0, 0);

    assertEquals(NOW + 4 * S, first);
    assertEquals(first + S / 2, second, "behind the first, not beside it");
    assertEquals(second + S / 2, third, "the tail, not now + 4 s, sets it");
  }

  @Test
  @DisplayName("a lane held until T (Retry-After, a disabled endpoint's probe) counts from T")
  void shouldCountFromTheEndOfTheLanesHold() {
    assertEquals(NOW + 60 * S + 5 * S, schedule.park(NOW, 10, 2.0, NOW + 60 * S));
  }

  @Test
  @DisplayName("a tail in the past is forgotten: the lane drained, the next counts from now")
  void shouldForgetATailThatHasPassed() {
    schedule.park(NOW, 8, 2.0, 0);

    assertEquals(NOW + 100 * S + S, schedule.park(NOW + 100 * S, 2, 2.0, 0));
  }

  @Test
  @DisplayName("the paced rate, not an estimate from a slow moment: 1,000 ahead at 100/s is 10 s")
  void shouldUseThePacedRate() {
    assertEquals(NOW + 10 * S, schedule.park(NOW, 1_000, 100.0, 0));
  }

  @Test
  @DisplayName("never parked more than 10 s past the lane's readiness: an estimate may be low for a moment")
  void shouldBringEveryEntryBackWithinTenSecondsOfTheLanesReadinessToBeJudgedAgain() {
    // A chaos run: 670 entries parked behind a tail 46 min ahead, worked out at a learned floor
    // that lifted seconds later; the provider sat idle with them due.
    assertEquals(NOW + 10 * S, schedule.park(NOW, 1, 0.0, 0), "a lane at no rate");
    for (int i = 0; i < 670; i++) {
      schedule.park(NOW, 1_000, 0.5, 0);
    }
    assertEquals(NOW + 10 * S, schedule.park(NOW, 1_000, 0.5, 0), "the tail held at the bound");
    assertEquals(NOW + 60 * S + 10 * S, schedule.park(NOW, 1_000, 0.5, NOW + 60 * S),
        "a hold's end, then 10 s");
  }

  @Test
  @DisplayName("an entry back from a park that finds the buffer full goes behind what is queued, not behind the tail")
  void shouldNotSendAReturningEntryToTheBackOfTheParkedLine() {
    for (int i = 0; i < 10; i++) {
      schedule.park(NOW, 4, 2.0, 0);
    }
    assertEquals(NOW + 2 * S, schedule.park(NOW, 4, 2.0, 0, true), "its turn behind 4 queued");
    assertEquals(NOW + 2 * S + 10 * (S / 2), schedule.park(NOW, 4, 2.0, 0),
        "the tail did not move for it");
  }

  @Test
  @DisplayName("a lane keeps what it can call within the window, and one at least")
  void shouldKeepWhatTheLaneCanCallWithinTheWindow() {
    assertEquals(32, ParkingSchedule.keeps(NOW, 2.0, 0, 16 * S), "16 s at 2/s");
    assertEquals(1_600, ParkingSchedule.keeps(NOW, 100.0, 0, 16 * S), "16 s at 100/s");
    assertEquals(12, ParkingSchedule.keeps(NOW, 2.0, NOW + 10 * S, 16 * S),
        "held 10 s: what the 6 s left allow");
    assertEquals(1, ParkingSchedule.keeps(NOW, 2.0, NOW + 60 * S, 16 * S),
        "held past the window: one, for the probe or the next call");
  }
}
