package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@code local} fallback on fake clocks: the monotonic clock Redis's last answer was received
 * on ({@link KnownLevel#atNanos()}), and the wall clock of each decision ({@code nowMillis}).
 */
class LocalBucketsTest {
  /** 10 units, refilling 10 a second: one unit per 100 ms; reservations up to a minute ahead. */
  private static final BucketSpec SPEC = new BucketSpec(10, 10, 60_000_000);
  private static final BucketKey KEY = new BucketKey("api", "acme");
  private static final long NOW = 1_000_000;

  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);

  private LocalBuckets buckets(double share) {
    return new LocalBuckets(() -> share, nanos::get);
  }

  @Test
  @DisplayName("a bucket never heard of from Redis starts as deep as a full reach of reservations at this instance's share: it sells nothing Redis's line may already hold")
  void unknownBucketStartsAtTheDeepestRedisMayHoldIt() {
    // Two instances: 5 units refilling 5 a second; horizon 60 s, so the reach is 120 s and the
    // deepest Redis may hold the bucket (its predecessor's reservations) is 600 units of debt.
    LocalBuckets local = buckets(0.5);
    assertEquals(new LimiterDecision.Unavailable("beyond the reservation horizon while Redis is away"),
        local.decide(KEY, SPEC, 1, NOW), "a bucket started full would admit it at once");
    assertTrue(local.decide(KEY, SPEC, 1, NOW + 59_000) instanceof LimiterDecision.Unavailable,
        "59 s on, a unit is still due beyond the horizon: 120.2 s after the start");
    assertEquals(new LimiterDecision.Reserved(NOW + 120_200), local.decide(KEY, SPEC, 1, NOW + 61_000),
        "61 s on, it is within the horizon: reserved where the deepest line would end");
    assertEquals(new LimiterDecision.Reserved(NOW + 120_400), local.decide(KEY, SPEC, 1, NOW + 61_000),
        "the next waits for one unit more at 5 a second");
  }

  @Test
  @DisplayName("the wall clock refills the local bucket between decisions")
  void refillsWithTheWallClock() {
    LocalBuckets local = buckets(1);
    KnownLevel full = new KnownLevel(10, nanos.get());
    for (int i = 0; i < 10; i++) {
      local.decide(KEY, SPEC, 1, NOW, false, full);
    }
    assertEquals(new LimiterDecision.Admit(NOW + 100), local.decide(KEY, SPEC, 1, NOW + 100, false, full),
        "one unit refilled after 100 ms");
  }

  @Test
  @DisplayName("a bucket Redis answered for starts from that level, refilled on the monotonic clock since the answer")
  void startsFromRedisLevelRefilledSinceTheAnswer() {
    // Redis's last answer: 10 units in debt (a second already sold as reservations)...
    KnownLevel known = new KnownLevel(-10, nanos.get());
    // ...received half a second ago: 5 units of that debt are paid by now.
    nanos.addAndGet(500_000_000L);
    assertEquals(new LimiterDecision.Reserved(NOW + 600), buckets(1).decide(KEY, SPEC, 1, NOW, false, known),
        "owes 5, needs 1 more: 600 ms at 10 a second");
    assertEquals(new LimiterDecision.Reserved(NOW + 700), buckets(0.5).decide(KEY, SPEC, 1, NOW, false, known),
        "at half the share: owes 2.5, needs 1 more, at 5 a second");
  }

  @Test
  @DisplayName("a bucket Redis answered for beside an old line refills beside it, at new - old until it ends, at the instance's share")
  void startsBesideTheOldLineRedisAnswered() {
    // Redis's last answer: 3 units reserved beside an old line at 4/s for 2 more seconds (a quota
    // raised from 4/s to 10/s while reservations sold at 4/s were still owed): it refills at 6/s.
    Acquisition answer = new Acquisition(1, -2, 0, 0, 0, 0, 0, 4, 2_000_000);
    KnownLevel known = KnownLevel.after(answer, nanos.get());
    nanos.addAndGet(500_000_000L);
    assertEquals(new LimiterDecision.Reserved(NOW + 167), buckets(1).decide(KEY, SPEC, 1, NOW, false, known),
        "the 3 repaid at 6/s in the half second; the next unit 1/6 s on (refilled at 10/s, it would be admitted at once)");
    assertEquals(new LimiterDecision.Reserved(NOW + 334), buckets(0.5).decide(KEY, SPEC, 1, NOW, false, known),
        "at half the share: the line at 2/s and the bucket beside it at 3/s: 1 more unit in 333.3 ms");
  }

  @Test
  @DisplayName("a new answer from Redis restarts the local bucket from it; the same answer again does not")
  void newAnswerRestartsTheBucket() {
    LocalBuckets local = buckets(1);
    KnownLevel full = new KnownLevel(10, nanos.get());
    for (int i = 0; i < 10; i++) {
      assertEquals(new LimiterDecision.Admit(NOW), local.decide(KEY, SPEC, 1, NOW, false, full));
    }
    assertEquals(new LimiterDecision.Reserved(NOW + 100), local.decide(KEY, SPEC, 1, NOW, false, full),
        "the same answer: the local bucket goes on, spent");
    KnownLevel again = new KnownLevel(3, nanos.get());
    assertEquals(new LimiterDecision.Admit(NOW), local.decide(KEY, SPEC, 1, NOW, false, again),
        "Redis answered since: started afresh from its 3 units");
  }

  @Test
  @DisplayName("like Redis, it reserves only within the horizon: an event beyond it is not charged and waits for Redis")
  void neverReservesBeyondTheHorizon() {
    // 10 units at 10 a second, reservations up to 1 s ahead: 10 now, 10 reserved, then none.
    BucketSpec spec = new BucketSpec(10, 10, 1_000_000);
    LocalBuckets local = buckets(1);
    KnownLevel full = new KnownLevel(10, nanos.get());
    for (int i = 0; i < 10; i++) {
      assertEquals(new LimiterDecision.Admit(NOW), local.decide(KEY, spec, 1, NOW, false, full));
    }
    for (int i = 1; i <= 10; i++) {
      assertEquals(new LimiterDecision.Reserved(NOW + 100 * i), local.decide(KEY, spec, 1, NOW, false, full),
          "reserved " + i + " within the horizon");
    }
    assertEquals(new LimiterDecision.Unavailable("beyond the reservation horizon while Redis is away"),
        local.decide(KEY, spec, 1, NOW, false, full), "1.1 s ahead: beyond the horizon");
    assertEquals(new LimiterDecision.Reserved(NOW + 100 + 1000), local.decide(KEY, spec, 1, NOW + 100, false, full),
        "the refused one charged nothing: 100 ms on, the next fits at +1.1 s, behind the ten reserved");
  }

  @Test
  @DisplayName("in shadow mode an event the bucket cannot pay now would be deferred, and reserves nothing")
  void shadowWouldDefer() {
    LocalBuckets local = buckets(1);
    KnownLevel empty = new KnownLevel(0, nanos.get());
    assertEquals(new LimiterDecision.WouldDefer(NOW + 100), local.decide(KEY, SPEC, 1, NOW, true, empty));
    assertEquals(new LimiterDecision.WouldDefer(NOW + 100), local.decide(KEY, SPEC, 1, NOW, true, empty),
        "nothing was reserved by the first");
  }
}
