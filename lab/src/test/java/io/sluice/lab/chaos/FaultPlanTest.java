package io.sluice.lab.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FaultPlanTest {
  private static final List<String> ROLES = List.of("gate", "relay", "dispatch-a", "dispatch-b");

  @Test
  void killsGoRoundEveryRoleWithinTheLoadInTimeOrder() {
    List<FaultPlan.Fault> plan = FaultPlan.of(ROLES, 20, 2, 1, 240_000, 9);
    Map<String, Long> killsByRole = plan.stream()
        .filter(f -> f.kind() == FaultPlan.Kind.KILL_ROLE)
        .collect(Collectors.groupingBy(FaultPlan.Fault::target, Collectors.counting()));
    assertEquals(Map.of("gate", 5L, "relay", 5L, "dispatch-a", 5L, "dispatch-b", 5L),
        killsByRole);
    assertEquals(2, plan.stream().filter(f -> f.kind() == FaultPlan.Kind.RESTART_REDIS).count());
    assertEquals(1, plan.stream().filter(f -> f.kind() == FaultPlan.Kind.RESTART_BROKER).count());
    for (int i = 0; i < plan.size(); i++) {
      FaultPlan.Fault f = plan.get(i);
      assertTrue(f.atMillis() > 0 && f.atMillis() < 240_000, () -> "outside the load: " + f);
      if (i > 0) {
        assertTrue(plan.get(i - 1).atMillis() <= f.atMillis());
      }
    }
  }

  @Test
  void theSameSeedGivesTheSamePlan() {
    assertEquals(FaultPlan.of(ROLES, 6, 1, 1, 60_000, 3), FaultPlan.of(ROLES, 6, 1, 1, 60_000, 3));
  }

  @Test
  void providerPhasesFollowTheSchedule() {
    Function<Double, ProviderPhase> at = f -> ProviderPhase.at((long) (f * 100_000), 100_000);
    assertEquals(ProviderPhase.NORMAL, at.apply(0.05));
    assertEquals(ProviderPhase.ERRORS, at.apply(0.15));
    assertEquals(ProviderPhase.TIMEOUTS, at.apply(0.33));
    assertEquals(ProviderPhase.STORM, at.apply(0.50));
    assertEquals(ProviderPhase.SLOW, at.apply(0.70));
    assertEquals(ProviderPhase.NORMAL, at.apply(0.76));
    assertEquals(ProviderPhase.HOSTILE, at.apply(0.90));
    assertEquals(ProviderPhase.NORMAL, ProviderPhase.at(-5, 100_000));
  }

  @Test
  void fiveBrokerRestartsAreSpreadOverTheLoadAtLeastTwentySecondsApart() {
    List<Long> restarts = FaultPlan.of(ROLES, 20, 2, 5, 240_000, 9).stream()
        .filter(f -> f.kind() == FaultPlan.Kind.RESTART_BROKER).map(FaultPlan.Fault::atMillis).toList();
    assertEquals(5, restarts.size());
    for (int i = 1; i < restarts.size(); i++) {
      assertTrue(restarts.get(i) - restarts.get(i - 1) >= 20_000, () -> "too close: " + restarts);
    }
    assertTrue(restarts.get(4) < 240_000, "within the load");
  }
}
