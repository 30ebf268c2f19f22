package io.sluice.dispatcher.dispatch.lane;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** When a lane publishes its busy tenants, and when it trusts the share it heard: on a clock passed in. */
class ShareCadenceTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long NOW = 1_000_000 * MS;
  private static final Map<String, Integer> TWO_GOLD = Map.of("gold", 2);
  private final ShareCadence cadence = new ShareCadence();

  @Test
  @DisplayName("a lane with busy tenants publishes at once, then not again within 250 ms")
  void shouldPublishAtMostEveryQuarterSecond() {
    assertTrue(cadence.due(NOW) && cadence.publish(TWO_GOLD, NOW));
    cadence.answered(true, NOW + MS);

    assertFalse(cadence.due(NOW + 249 * MS));
    assertTrue(cadence.due(NOW + 250 * MS));
  }

  @Test
  @DisplayName("one publication out at a time: none starts while one is out, until it is a second old")
  void shouldKeepOnePublicationOutAndGiveUpOnAfterASecond() {
    cadence.publish(TWO_GOLD, NOW);

    assertFalse(cadence.due(NOW + 500 * MS), "the first has not come back");
    assertTrue(cadence.due(NOW + 1_000 * MS), "given up: its answer may never come");
  }

  @Test
  @DisplayName("an empty lane publishes once, which withdraws it, and then nothing while it stays empty")
  void shouldWithdrawOnceAndThenStaySilent() {
    assertFalse(cadence.publish(Map.of(), NOW), "never published: nothing to withdraw");
    cadence.publish(TWO_GOLD, NOW);
    cadence.answered(true, NOW);

    assertTrue(cadence.publish(Map.of(), NOW + 250 * MS), "the withdrawal");
    cadence.answered(true, NOW + 250 * MS);
    assertFalse(cadence.publish(Map.of(), NOW + 500 * MS));
  }

  @Test
  @DisplayName("a share not confirmed for a second is stale: the lane claims as if alone")
  void shouldTrustAShareForASecondAfterItWasHeard() {
    cadence.publish(TWO_GOLD, NOW);
    cadence.answered(true, NOW);

    assertFalse(cadence.stale(NOW + 1_000 * MS));
    assertTrue(cadence.stale(NOW + 1_000 * MS + 1));
  }

  @Test
  @DisplayName("a failed publication confirms nothing, but another may start")
  void shouldConfirmNothingWithAFailedPublication() {
    cadence.publish(TWO_GOLD, NOW);
    cadence.answered(true, NOW);
    cadence.publish(TWO_GOLD, NOW + 250 * MS);
    cadence.answered(false, NOW + 260 * MS);

    assertTrue(cadence.due(NOW + 500 * MS));
    assertTrue(cadence.stale(NOW + 1_001 * MS), "heard last at NOW");
  }
}
