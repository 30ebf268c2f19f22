package io.sluice.dispatcher.fair;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** How instances sharing a provider split it so that every busy tenant of a tier gets the same. */
class GlobalShareTest {
  private static final Map<String, Double> WEIGHTS = Map.of("gold", 8.0, "silver", 4.0, "free", 1.0);
  private static final double EPS = 1e-12;

  @Test
  void shouldGiveAnInstanceAloneAllOfTheLeakAtTheConfiguredWeights() {
    Map<String, Integer> busy = Map.of("gold", 3, "free", 2);
    GlobalShare share = GlobalShare.of(WEIGHTS, busy, busy);
    assertEquals(1.0, share.instanceShare(), EPS);
    assertEquals(WEIGHTS, share.localWeights());
  }

  @Test
  void shouldGiveEveryBusyTenantOfATierTheSamePartOfTheLeakOnEitherInstance() {
    // A holds 3 of gold's 10 busy tenants, 7 of silver's, 5 of free's; B the rest.
    Map<String, Integer> a = Map.of("gold", 3, "silver", 7, "free", 5);
    Map<String, Integer> b = Map.of("gold", 7, "silver", 3, "free", 5);
    Map<String, Integer> all = Map.of("gold", 10, "silver", 10, "free", 10);
    GlobalShare onA = GlobalShare.of(WEIGHTS, a, all);
    GlobalShare onB = GlobalShare.of(WEIGHTS, b, all);

    assertEquals(1.0, onA.instanceShare() + onB.instanceShare(), EPS, "the shares fill the leak");
    for (String tier : WEIGHTS.keySet()) {
      double perTenantOnA = perTenant(onA, a, tier);
      double perTenantOnB = perTenant(onB, b, tier);
      double fair = WEIGHTS.get(tier) / 13.0 / 10;
      assertEquals(fair, perTenantOnA, EPS, tier + " tenant on A");
      assertEquals(fair, perTenantOnB, EPS, tier + " tenant on B");
    }
  }

  @Test
  void shouldLeaveTiersThatAreIdleEverywhereOutOfTheSplit() {
    // Only gold and free are busy: gold gets 8/9 of the leak, not 8/13.
    Map<String, Integer> a = Map.of("gold", 1);
    Map<String, Integer> b = Map.of("free", 4);
    Map<String, Integer> all = Map.of("gold", 1, "free", 4);
    assertEquals(8.0 / 9, GlobalShare.of(WEIGHTS, a, all).instanceShare(), EPS);
    assertEquals(1.0 / 9, GlobalShare.of(WEIGHTS, b, all).instanceShare(), EPS);
  }

  @Test
  void shouldReadASumBelowTheLocalCountAsTheLocalCount() {
    // The sums answered are older than this instance's count: it never claims more than all.
    GlobalShare share = GlobalShare.of(WEIGHTS, Map.of("gold", 4), Map.of("gold", 2));
    assertEquals(1.0, share.instanceShare(), EPS);
    assertEquals(8.0, share.localWeights().get("gold"), EPS);
  }

  @Test
  void shouldWeighATierThatIsNotConfiguredAsTheSmallestConfiguredWeight() {
    GlobalShare share = GlobalShare.of(WEIGHTS, Map.of("trial", 1), Map.of("trial", 2, "gold", 1));
    assertEquals(0.5 / 9, share.instanceShare(), EPS);
    assertEquals(0.5, share.localWeights().get("trial"), EPS);
    assertEquals(8.0, share.localWeights().get("gold"), EPS, "tiers it holds nothing of keep theirs");
  }

  /** What one busy tenant of {@code tier} gets of the leak on an instance. */
  private static double perTenant(GlobalShare share, Map<String, Integer> busy, String tier) {
    double localSum = busy.keySet().stream().mapToDouble(share.localWeights()::get).sum();
    return share.instanceShare() * share.localWeights().get(tier) / localSum / busy.get(tier);
  }
}
