package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LinePlacesTest {
  // refill 10/s: one unit of line per 100 ms; horizon 1 s.
  private static final BucketSpec SPEC = new BucketSpec(10, 10, 1_000_000);
  private static final long T0 = 1_000_000_000L;
  private static final long USE = 2_000_000;

  /** Queued at level -10.5 (the horizon full), turn in 150 ms, 5 units of line taken in all. */
  private static LinePlaces places() {
    Acquisition queued = new Acquisition(0, -10.5, T0, 150_000, 0, 0, T0 + 650_000);
    return new LinePlaces(SPEC, queued, 1, 5, USE, 0, 0);
  }

  private static long localNanosAfter(long micros) {
    return micros * 1000;
  }

  @Test
  void shouldGiveEachEventTheNextPlacesInLine() {
    LinePlaces places = places();
    assertEquals(T0 + 250_000, places.take(1, localNanosAfter(1_000)), "the asker has 150 ms; the next unit is 100 ms on");
    assertEquals(T0 + 350_000, places.take(2, localNanosAfter(2_000)), "a cost-2 event starts at the next unit");
    assertEquals(-1, places.take(2, localNanosAfter(3_000)), "one unit left: a cost-2 event asks Redis");
    assertEquals(T0 + 550_000, places.take(1, localNanosAfter(3_000)));
    assertNull(places.giveBack(), "all used: nothing to give back");
  }

  @Test
  void shouldAskRedisOnceTheRefillMayHaveMadeRoomWithinTheHorizon() {
    // Level -10.5 and a horizon of 10 units: a unit fits once the level is back to -9, 150 ms on.
    LinePlaces places = places();
    assertEquals(T0 + 250_000, places.take(1, localNanosAfter(149_000)));
    assertEquals(-1, places.take(1, localNanosAfter(150_000)), "Redis would reserve it now rather than queue it");
  }

  @Test
  void shouldGiveBackWhatIsLeftWithTheLineEnd() {
    LinePlaces places = places();
    places.take(1, localNanosAfter(1_000));
    assertEquals(new PlacesRelease(T0 + 650_000, 3), places.giveBack());
  }

  @Test
  void shouldStopAtTheEndOfItsUseWindow() {
    Acquisition queued = new Acquisition(0, -100, T0, 5_000_000, 0, 0, T0 + 9_000_000);
    LinePlaces places = new LinePlaces(SPEC, queued, 1, 40, USE, 0, 0);
    assertEquals(T0 + 5_100_000, places.take(1, localNanosAfter(1_999_999)));
    assertEquals(-1, places.take(1, localNanosAfter(2_000_000)));
  }

  @Test
  void shouldOnlyComeFromAQueuedAnswer() {
    Acquisition granted = new Acquisition(1, 3, T0, 0, 0, 0, 0);
    assertThrows(IllegalArgumentException.class, () -> new LinePlaces(SPEC, granted, 1, 5, USE, 0, 0));
  }
}
