package io.sluice.lab.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.schemas.topic.DelayLadder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DelayPathTest {
  private static final DelayLadder DEFAULT = new DelayLadder(List.of(Duration.ofSeconds(1),
      Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(2), Duration.ofMinutes(10)));

  @Test
  @DisplayName("a wait equal to a step sits in that step alone")
  void exactStep() {
    assertEquals(1, DelayPath.placements(DEFAULT, 600_000));
    assertEquals(1, DelayPath.placements(DEFAULT, 5_000));
  }

  @Test
  @DisplayName("a wait below the smallest step sits in the smallest step")
  void shortWait() {
    assertEquals(1, DelayPath.placements(DEFAULT, 300));
  }

  @Test
  @DisplayName("47 s takes 30 s + 5 s + 5 s + 5 s + the rest, as the ladder's own comment says")
  void fortySeven() {
    // 30 (17 left) 5 (12) 5 (7) 5 (2) 1 (1 left when its stay ends: held to its not-before).
    assertEquals(5, DelayPath.placements(DEFAULT, 47_000));
  }

  @Test
  @DisplayName("a millisecond under 10 minutes hops down the whole ladder")
  void justUnderTenMinutes() {
    // 2m x4 (1:59.999 left), 30s x3 (29.999), 5s x5 (4.999), 1s x4, the last held past its
    // stay to its not-before (0.999 s left when the stay ends: less than the smallest step).
    assertEquals(16, DelayPath.placements(DEFAULT, 599_999));
  }
}
