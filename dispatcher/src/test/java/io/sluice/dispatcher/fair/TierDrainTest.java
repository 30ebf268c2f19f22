package io.sluice.dispatcher.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When each tier's queue is served, shared by weight, a finished tier's share going to the rest. */
class TierDrainTest {
  private static final Map<String, Double> WEIGHTS = Map.of("gold", 8.0, "silver", 4.0,
      "free", 1.0);

  @Test
  void shouldGiveAFinishedTiersShareToTheOthers() {
    // Together gold is served 16/s, free 2/s; gold ends at 5 s with free's 40 left, then 18/s.
    Map<String, Double> s = TierDrain.seconds(Map.of("gold", 80L, "free", 50L), WEIGHTS, 18);
    assertEquals(5.0, s.get("gold"), 1e-9);
    assertEquals(5.0 + 40.0 / 18, s.get("free"), 1e-9);
  }

  @Test
  void shouldEndTheLastTierWhenTheWholeQueueIsServed() {
    Map<String, Long> queued = Map.of("gold", 7L, "silver", 300L, "free", 12L);
    Map<String, Double> s = TierDrain.seconds(queued, WEIGHTS, 10);
    double last = s.values().stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    assertEquals(319 / 10.0, last, 1e-9, "work-conserving: everything by total/rate");
    for (String tier : List.of("gold", "silver", "free")) {
      double alone = queued.get(tier) / (10 * WEIGHTS.get(tier) / 13);
      assertTrue(s.get(tier) <= alone + 1e-9, tier + " no later than at its own share");
    }
  }

  @Test
  void shouldEndTiersWithEqualCostPerWeightTogether() {
    Map<String, Double> s = TierDrain.seconds(Map.of("gold", 80L, "silver", 40L), WEIGHTS, 12);
    assertEquals(10.0, s.get("gold"), 1e-9);
    assertEquals(10.0, s.get("silver"), 1e-9);
  }

  @Test
  void shouldWeighAnUnknownTierAsTheLightest() {
    Map<String, Double> s = TierDrain.seconds(Map.of("gold", 8L, "legacy", 1L), WEIGHTS, 9);
    assertEquals(1.0, s.get("gold"), 1e-9);
    assertEquals(1.0, s.get("legacy"), 1e-9);
  }

  @Test
  void shouldAnswerNothingWithoutARateOrAQueue() {
    assertEquals(Map.of(), TierDrain.seconds(Map.of("gold", 5L), WEIGHTS, 0));
    assertEquals(Map.of(), TierDrain.seconds(Map.of("gold", 5L), WEIGHTS, Double.NaN));
    assertEquals(Map.of(), TierDrain.seconds(Map.of("gold", 0L), WEIGHTS, 5));
  }
}
