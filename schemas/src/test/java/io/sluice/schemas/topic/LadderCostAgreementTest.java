package io.sluice.schemas.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.config.LadderCost;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The records a wait costs, as start-up counts them ({@link LadderCost}) and as the relay walks
 * the ladder ({@link DelayLadder#stepFor}, {@link DelayLadder#releaseAt}): one answer.
 */
class LadderCostAgreementTest {
  private static final List<Duration> DEFAULT = List.of(Duration.ofSeconds(1), Duration.ofSeconds(5),
      Duration.ofSeconds(30), Duration.ofMinutes(2), Duration.ofMinutes(10));
  private static final List<Duration> LONG = List.of(Duration.ofSeconds(1), Duration.ofSeconds(5),
      Duration.ofSeconds(30), Duration.ofMinutes(2), Duration.ofMinutes(10), Duration.ofHours(1), Duration.ofHours(6));

  /** The relay's walk: placed now, each stay ending in a hop until one ends at the not-before. */
  private static long walked(DelayLadder ladder, long wait) {
    long records = 1;
    long placed = 0;
    Duration step = ladder.stepFor(wait);
    while (ladder.releaseAt(placed, wait, step) != wait) {
      placed += step.toMillis();
      step = ladder.stepFor(wait - placed);
      records++;
    }
    return records;
  }

  @Test
  void shouldCountWhatTheRelayWalks() {
    Random random = new Random(35);
    for (List<Duration> steps : List.of(DEFAULT, LONG, List.of(Duration.ofMillis(200), Duration.ofSeconds(3)))) {
      DelayLadder ladder = new DelayLadder(steps);
      for (int i = 0; i < 5_000; i++) {
        long wait = random.nextLong(Duration.ofDays(8).toMillis());
        assertEquals(walked(ladder, wait), LadderCost.recordsFor(steps, wait), steps + ", wait " + wait);
      }
    }
  }

  @Test
  void shouldCostADayAheadFourRecordsWithASixHourStepAndOneHundredFortyFourWithout() {
    long day = Duration.ofDays(1).toMillis();
    assertEquals(144, LadderCost.recordsFor(DEFAULT, day), "one record per 10m step");
    assertEquals(4, LadderCost.recordsFor(LONG, day), "6h four times, the last let out at its not-before");
    assertEquals(28, LadderCost.recordsFor(LONG, Duration.ofDays(7).toMillis()));
    assertEquals(1, LadderCost.recordsFor(DEFAULT, Duration.ofMinutes(10).toMillis()), "the longest step, once");
    assertEquals(1, LadderCost.recordsFor(DEFAULT, 500), "within the hold of the smallest step");
    // 47 s: 30 s, then 5 s, 5 s, 5 s, then the last 2 s held in the 1 s step.
    assertEquals(5, LadderCost.recordsFor(DEFAULT, 47_000));
  }
}
