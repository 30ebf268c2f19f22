package io.sluice.app.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RedisLossTest {
  private static final long S = 1_000_000;
  private static final long NOW = 1_800_000_000L * S;
  private static final long REACH = 60 * S;
  private static final long REFILL = 10 * S;

  private static List<Optional<String>> markers(int intact, String... others) {
    List<Optional<String>> out = new ArrayList<>(Collections.nCopies(intact, Optional.of("0")));
    for (String o : others) {
      out.add(Optional.ofNullable(o));
    }
    return out;
  }

  @Test
  void shouldSayNothingWhenEverySampledSlotIsIntact() {
    assertEquals(Optional.empty(), RedisLoss.judge(markers(64), NOW, REACH, REFILL));
  }

  @Test
  void shouldSayWhenTheLatestLossWasFoundAndWhenAdmissionsResume() {
    String found = Long.toString(NOW - 20 * S);
    String earlier = Long.toString(NOW - 25 * S);
    assertEquals(Optional.of(new RedisLoss(NOW - 20 * S, 4, 64, NOW + 40 * S, NOW + 50 * S)),
        RedisLoss.judge(markers(60, found, found, earlier, found), NOW, REACH, REFILL));
  }

  @Test
  void shouldCountAMissingMarkerAsALossFoundNow() {
    assertEquals(Optional.of(new RedisLoss(NOW, 1, 64, NOW + REACH, NOW + REACH + REFILL)),
        RedisLoss.judge(markers(63, (String) null), NOW, REACH, REFILL));
  }

  @Test
  void shouldSayNothingOnceEveryRebuiltBucketHasRefilled() {
    String found = Long.toString(NOW - REACH - REFILL);
    assertEquals(Optional.empty(), RedisLoss.judge(markers(63, found), NOW, REACH, REFILL));
    String justBefore = Long.toString(NOW - REACH - REFILL + 1);
    assertTrue(RedisLoss.judge(markers(63, justBefore), NOW, REACH, REFILL).isPresent());
  }

  @Test
  void shouldReadAMarkerNoScriptWritesAsIntactAndAFutureOneAsNow() {
    assertEquals(Optional.empty(), RedisLoss.judge(markers(63, "not a time"), NOW, REACH, REFILL));
    assertEquals(Optional.of(NOW), RedisLoss.judge(markers(63, Long.toString(NOW + 500 * S)), NOW, REACH,
        REFILL).map(RedisLoss::lostAtMicros));
  }
}
