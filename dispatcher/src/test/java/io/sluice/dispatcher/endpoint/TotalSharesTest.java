package io.sluice.dispatcher.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.dispatcher.endpoint.TotalShares.Demand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TotalSharesTest {
  private static final Map<String, Double> WEIGHTS = Map.of("gold", 3.0, "std", 1.0);

  private static List<Demand<String>> endpoints(String tier, int n, double ceiling) {
    List<Demand<String>> d = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      d.add(new Demand<>(tier + i, tier, ceiling));
    }
    return d;
  }

  private static List<Demand<String>> both(List<Demand<String>> a, List<Demand<String>> b) {
    List<Demand<String>> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  @Test
  @DisplayName("a binding total goes to tiers by weight, equally inside a tier")
  void shouldShareABindingTotalByTierWeight() {
    Map<String, Double> parts = TotalShares.of(40, WEIGHTS,
        both(endpoints("gold", 10, 5), endpoints("std", 10, 5)));
    assertEquals(3.0, parts.get("gold0"), 1e-9);
    assertEquals(3.0, parts.get("gold9"), 1e-9);
    assertEquals(1.0, parts.get("std0"), 1e-9);
    assertEquals(40.0, parts.values().stream().mapToDouble(Double::doubleValue).sum(), 1e-9);
  }

  @Test
  @DisplayName("what a tier cannot use (its endpoints' own rates) goes to the other tiers")
  void shouldGiveWhatATierCannotUseToTheOthers() {
    Map<String, Double> parts = TotalShares.of(40, WEIGHTS,
        both(endpoints("gold", 2, 5), endpoints("std", 10, 5)));
    assertEquals(5.0, parts.get("gold1"), 1e-9, "gold at its ceiling");
    assertEquals(3.0, parts.get("std0"), 1e-9, "the other 30/s among ten");
  }

  @Test
  @DisplayName("what one endpoint cannot use (slow calls) goes to its tier-mates first")
  void shouldGiveWhatAnEndpointCannotUseToItsTierMates() {
    List<Demand<String>> gold = new ArrayList<>(endpoints("gold", 2, 20));
    gold.add(new Demand<>("slow", "gold", 1));
    Map<String, Double> parts = TotalShares.of(40, WEIGHTS, both(gold, endpoints("std", 2, 20)));
    assertEquals(1.0, parts.get("slow"), 1e-9);
    assertEquals(14.5, parts.get("gold0"), 1e-9, "gold's 30/s less the slow one's 1, halved");
    assertEquals(5.0, parts.get("std0"), 1e-9, "std's 10/s halved");
  }

  @Test
  @DisplayName("a total that does not bind leaves each endpoint its own rate")
  void shouldLeaveEachEndpointItsRateWhenTheTotalDoesNotBind() {
    Map<String, Double> parts = TotalShares.of(100, WEIGHTS,
        both(endpoints("gold", 3, 5), endpoints("std", 3, 5)));
    parts.values().forEach(p -> assertEquals(5.0, p, 1e-9));
  }

  @Test
  @DisplayName("an unknown tier weighs the smallest configured weight")
  void shouldWeighAnUnknownTierAsTheSmallest() {
    Map<String, Double> parts = TotalShares.of(8, WEIGHTS,
        both(endpoints("gold", 1, 10), endpoints("trial", 1, 10)));
    assertEquals(6.0, parts.get("gold0"), 1e-9);
    assertEquals(2.0, parts.get("trial0"), 1e-9);
  }
}
