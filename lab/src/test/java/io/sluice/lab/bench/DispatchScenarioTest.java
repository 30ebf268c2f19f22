package io.sluice.lab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How the {@code dispatch} scenario judges a rate-limited run from the receiver's arrivals. */
class DispatchScenarioTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aDestinationCalledAtItsRateHoldsIt() {
    List<String> over = new ArrayList<>();
    long[] every200ms = {0, 200_000_000L, 400_000_000L, 600_000_000L, 800_000_000L,
        1_000_000_000L, 1_200_000_000L};
    int most = DispatchScenario.heldToRate(Map.of("/d/0", every200ms), 5, 0, 2 * SECOND, over);
    assertEquals(5, most, "at most 5 of them in any second");
    assertTrue(over.isEmpty(), over.toString());
  }

  @Test
  void sixCallsInOneSecondAtFivePerSecondIsOverItsRate() {
    List<String> over = new ArrayList<>();
    long[] bunched = {0, 100_000_000L, 200_000_000L, 300_000_000L, 400_000_000L, 500_000_000L};
    int most = DispatchScenario.heldToRate(Map.of("/d/0", new long[] {0}, "/d/1", bunched), 5,
        0, 10 * SECOND, over);
    assertEquals(6, most);
    assertEquals(List.of("6 calls at one destination in 1 s, 5 allowed"), over);
  }

  @Test
  void moreCallsOverTheWindowThanTheRateFitsIsOverItsRate() {
    List<String> over = new ArrayList<>();
    // 0.5/s for 4 s fits 3 calls (one at each end, one between); a call every 1.2 s makes 4,
    // though no second holds two.
    long[] calls = {0, 1_200_000_000L, 2_400_000_000L, 3_600_000_000L};
    DispatchScenario.heldToRate(Map.of("/d/0", calls), 0.5, 0, 4 * SECOND, over);
    assertEquals(List.of("4 calls at one destination in 4.0 s at 0.5/s"), over);
  }
}
