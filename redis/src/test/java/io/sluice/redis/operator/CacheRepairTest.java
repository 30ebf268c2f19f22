package io.sluice.redis.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.redis.operator.CacheRepair.Action;
import io.sluice.redis.operator.CacheRepair.Marker;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * When a role seeds Redis's cache of the operators' state again from the operator topic: one row
 * per rule, each with why.
 */
class CacheRepairTest {
  private static final long NOW = 1_000_000;
  private static final long PATIENCE = CacheRepair.SEEDING_PATIENCE.toMillis();

  static Stream<Arguments> rows() {
    return Stream.of(
        row("Redis does not answer: nothing can be written", true, null, Action.WAIT_FOR_REDIS),
        row("Redis down and the topic not read: Redis first", false, null, Action.WAIT_FOR_REDIS),
        row("a FLUSHALL took the marker: seed again", true, "", Action.SEED),
        row("the marker gone but the topic not read to its end: seeding part would lose the rest",
            false, "", Action.WAIT_FOR_LOG),
        row("the cache is whole: only follow the topic's changes", true, "seeded", Action.FOLLOW),
        row("another role started seeding a moment ago: leave it",
            true, CacheRepair.seeding("other", NOW - 1), Action.WAIT_FOR_SEEDER),
        row("another role's seed just inside its patience: still leave it",
            true, CacheRepair.seeding("other", NOW - PATIENCE + 1), Action.WAIT_FOR_SEEDER),
        row("a seed older than the patience: its role died mid-way; seed again",
            true, CacheRepair.seeding("other", NOW - PATIENCE), Action.SEED),
        row("a marker nobody wrote (unreadable): as absent, seed", true, "seeding x soon", Action.SEED),
        row("a marker written by a stranger: as absent, seed", true, "whatever", Action.SEED));
  }

  private static Arguments row(String why, boolean logRead, String marker, Action expected) {
    return Arguments.of(why, logRead, marker, expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void shouldSeedOnlyAWholeLogIntoALostCache(String why, boolean logRead, String marker,
      Action expected) {
    Optional<Marker> answer = marker == null ? Optional.empty()
        : Optional.of(CacheRepair.marker(marker.isEmpty() ? null : marker));
    assertEquals(expected, CacheRepair.decide(logRead, answer, NOW), why);
  }
}
