package io.sluice.redis.tenants;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.Quota;
import io.sluice.config.Rate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a gate keeps of the registry, when it asks Redis, and when it does without. */
class TenantCacheTest {
  private static final long SECOND = Duration.ofSeconds(1).toNanos();
  private static final TenantRecord PRO = new TenantRecord("pro",
      Map.of("payments-api", new Quota(60, Rate.parse("20/s"))), false);
  private static final TenantRecord FREE = new TenantRecord("free", Map.of(), false);

  private final TenantCache cache = new TenantCache(100);

  private static TenantRegistry.Changes changes(long version, long tenants, String... ids) {
    return new TenantRegistry.Changes(version, tenants, false, List.of(ids));
  }

  @Test
  void beforeTheFirstPollATenantIsLookedUpAndKept() {
    assertEquals(TenantCache.Miss.FETCH, cache.onMiss().miss());
    assertTrue(cache.store("acme", PRO, 3));
    assertEquals(PRO, cache.cached("acme").record());
  }

  @Test
  void anEmptyRegistryAnswersEveryMissWithoutAskingRedis() {
    cache.apply(changes(0, 0), 0);

    TenantCache.MissDecision miss = cache.onMiss();
    assertEquals(TenantCache.Miss.ABSENT, miss.miss());
    assertTrue(cache.store("acme", null, miss.version()));
    assertNull(cache.cached("acme").record(), "kept as having no record");
  }

  @Test
  void anEmptyRegistrysAnswerIsNotKeptWhenAChangeWasAppliedSinceItWasGiven() {
    cache.apply(changes(0, 0), 0);
    TenantCache.MissDecision miss = cache.onMiss();
    // Meanwhile acme is set, and the poll applies it.
    cache.apply(changes(1, 1, "acme"), SECOND);

    assertFalse(cache.store("acme", null, miss.version()), "acme may have a record now");
    assertEquals(TenantCache.Miss.FETCH, cache.onMiss().miss());
  }

  @Test
  void aChangeForgetsItsTenantAndNoOther() {
    cache.apply(changes(5, 2), 0);
    cache.store("acme", PRO, 5);
    cache.store("initech", FREE, 5);

    cache.apply(changes(6, 2, "acme"), SECOND);

    assertNull(cache.cached("acme"), "looked up again on its next event");
    assertEquals(FREE, cache.cached("initech").record());
  }

  @Test
  void aReadOlderThanTheChangesAppliedIsUsedButNotKept() {
    cache.apply(changes(5, 1), 0);
    // The read saw version 5; the poll meanwhile applied version 6, which may be acme's change.
    cache.apply(changes(6, 1, "acme"), SECOND);

    assertFalse(cache.store("acme", PRO, 5));
    assertNull(cache.cached("acme"));
    assertTrue(cache.store("acme", FREE, 6), "a read as new as the changes is kept");
  }

  @Test
  void aGapOrAWipedRegistryForgetsEverything() {
    cache.apply(changes(5, 2), 0);
    cache.store("acme", PRO, 5);
    cache.apply(new TenantRegistry.Changes(2_000, 2, true, List.of()), SECOND);
    assertEquals(0, cache.size(), "more changes than a poll reads");

    cache.store("acme", PRO, 2_000);
    cache.apply(changes(0, 0), 2 * SECOND);
    assertEquals(0, cache.size(), "the version went back: Redis was wiped");
    assertEquals(0, cache.version());
  }

  @Test
  void whileRedisDoesNotAnswerWhatIsKeptStaysAndMissesAreNotAsked() {
    cache.apply(changes(5, 1), 0);
    cache.store("acme", PRO, 5);

    cache.failed();

    assertEquals(PRO, cache.cached("acme").record(), "the last known record stays in force");
    assertEquals(TenantCache.Miss.UNAVAILABLE, cache.onMiss().miss());
    cache.apply(changes(5, 1), 10 * SECOND);
    assertEquals(TenantCache.Miss.FETCH, cache.onMiss().miss(), "asked again once a poll succeeds");
  }

  @Test
  void oneSlowLookUpIsNotAnOutageButThreeInARowAre() {
    cache.apply(changes(5, 1), 0);

    assertFalse(cache.lookupFailed());
    assertFalse(cache.lookupFailed());
    cache.store("acme", PRO, 5);
    assertFalse(cache.lookupFailed(), "an answer between failures starts the count again");
    assertFalse(cache.lookupFailed());
    assertEquals(TenantCache.Miss.FETCH, cache.onMiss().miss());
    assertTrue(cache.lookupFailed());
    assertEquals(TenantCache.Miss.UNAVAILABLE, cache.onMiss().miss());
  }

  @Test
  void keptRecordsAreStaleFiveSecondsAfterTheLastGoodPoll() {
    assertTrue(cache.stale(0), "no poll yet");
    cache.apply(changes(1, 1), 100 * SECOND);

    assertFalse(cache.stale(105 * SECOND));
    assertTrue(cache.stale(105 * SECOND + 1));
  }

  @Test
  void atCapacityTheTenantsNotLookedUpSinceTheLastSweepGo() {
    TenantCache small = new TenantCache(10);
    small.apply(changes(1, 1), 0);
    for (int i = 0; i < 10; i++) {
      small.store("t" + i, null, 1);
    }
    // A first sweep clears every mark and frees a tenth; the survivor is then the only one looked up.
    small.store("t10", null, 1);
    assertTrue(small.size() <= 10);
    String survivor = java.util.stream.IntStream.rangeClosed(0, 10).mapToObj(i -> "t" + i)
        .filter(id -> small.cached(id) != null).findFirst().orElseThrow();
    for (int i = 11; i < 30; i++) {
      small.store("t" + i, null, 1);
      small.cached(survivor);
      assertTrue(small.size() <= 10, "never more than the capacity");
    }
    assertNotNull(small.cached(survivor), "a tenant looked up between sweeps is kept");
  }
}
