package io.sluice.schemas.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DelayLadderTest {
  private final DelayLadder ladder = new DelayLadder(List.of(
      Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30),
      Duration.ofMinutes(2), Duration.ofMinutes(10)));

  @Test
  void shouldPlaceAWaitInTheLargestStepNotAboveIt() {
    assertEquals(Duration.ofSeconds(1), ladder.stepFor(1_000));
    assertEquals(Duration.ofSeconds(1), ladder.stepFor(4_999));
    assertEquals(Duration.ofSeconds(5), ladder.stepFor(5_000));
    assertEquals(Duration.ofSeconds(30), ladder.stepFor(119_999));
    assertEquals(Duration.ofMinutes(10), ladder.stepFor(3_600_000));
  }

  @Test
  void shouldPlaceWaitsShorterThanTheSmallestStepInTheSmallestStep() {
    assertEquals(Duration.ofSeconds(1), ladder.stepFor(0));
    assertEquals(Duration.ofSeconds(1), ladder.stepFor(250));
    assertEquals(Duration.ofSeconds(1), ladder.stepFor(-5));
  }

  @Test
  void shouldReleaseAtNotBeforeOrAfterAWholeStepWhicheverIsFirst() {
    assertEquals(10_400, ladder.releaseAt(10_000, 10_400, Duration.ofSeconds(1)));
    assertEquals(40_000, ladder.releaseAt(10_000, 47_000, Duration.ofSeconds(30)), "then it hops");
  }

  @Test
  void shouldHoldARecordToItsNotBeforeRatherThanHopItWithLessThanTheSmallestStepLeft() {
    assertEquals(41_000, ladder.releaseAt(10_000, 41_000, Duration.ofSeconds(30)), "1 s left: held, no hop");
    assertEquals(40_000, ladder.releaseAt(10_000, 41_001, Duration.ofSeconds(30)), "more: it hops");
    assertEquals(11_900, ladder.releaseAt(10_000, 11_900, Duration.ofSeconds(1)));
  }

  @Test
  void shouldHoldAtLeastOneSecondOnALadderWithASmallerStep() {
    DelayLadder fine = new DelayLadder(List.of(Duration.ofMillis(100), Duration.ofSeconds(1)));
    assertEquals(1_000, fine.holdMillis());
    assertEquals(1_950, fine.releaseAt(0, 1_950, Duration.ofSeconds(1)), "held, not hopped to the 100 ms step");
    assertEquals(1_000, fine.releaseAt(0, 2_001, Duration.ofSeconds(1)));
  }

  @Test
  void shouldRefuseALadderThatDoesNotIncrease() {
    assertThrows(IllegalArgumentException.class,
        () -> new DelayLadder(List.of(Duration.ofSeconds(5), Duration.ofSeconds(5))));
    assertThrows(IllegalArgumentException.class, () -> new DelayLadder(List.of()));
  }
}
