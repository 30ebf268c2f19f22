package io.sluice.dispatcher.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.dispatcher.dispatch.lane.LaneBacklog;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A provider's lanes' backlogs as an instance tells them to status. */
class BacklogsTest {
  private static final LaneBacklog SHARED = new LaneBacklog(Map.of("pro", 6L, "free", 2L),
      Map.of("pro", 1_000L, "free", 4_000L), Map.of("a", 1_000L, "b", 3_000L, "c", 4_000L),
      Map.of("pro", 1.5, "free", 2.0));
  private static final LaneBacklog ENDPOINT = new LaneBacklog(Map.of("pro", 3L),
      Map.of("pro", 500L), Map.of("d", 500L, "a", 2_000L), Map.of("pro", 3.0001));

  @Test
  void shouldSumCostsAndTakeTheOldestAndTheLatestDrainPerTier() {
    assertEquals(Map.of("pro", new Waits.TierWait(9, 500, 3001),
        "free", new Waits.TierWait(2, 4_000, 2_000)), Backlogs.tiers(List.of(SHARED, ENDPOINT)));
  }

  @Test
  void shouldTellNoDrainWhenALaneCannot() {
    LaneBacklog held = new LaneBacklog(Map.of("free", 1L), Map.of(), Map.of(), Map.of());
    assertEquals(new Waits.TierWait(3, 4_000, -1),
        Backlogs.tiers(List.of(SHARED, held)).get("free"));
    assertEquals(new Waits.TierWait(3, 4_000, -1),
        Backlogs.tiers(List.of(held, SHARED)).get("free"));
  }

  @Test
  void shouldKeepTheTenantsWaitingLongestAndCountThemAll() {
    Backlogs.Tenants t = Backlogs.tenants(List.of(SHARED, ENDPOINT), 3);
    assertEquals(Map.of("d", 500L, "a", 1_000L, "b", 3_000L), t.oldest());
    assertEquals(List.of("d", "a", "b"), List.copyOf(t.oldest().keySet()));
    assertEquals(4, t.waiting());
  }
}
