package io.sluice.topology.limiter;

import java.util.List;

/**
 * One table, the behaviour of a bucket step by step, run against both the Java math
 * ({@link TokenBucketMathTest}) and the Lua script on a real Redis ({@link TokenBucketScriptIT}).
 * The bucket: capacity 10, refill 10/s (one unit per 100 ms), reservation horizon 1 s (so at most
 * ten units of debt). Each step first moves time by {@code advanceMillis}, then asks.
 *
 * <p>Expected levels and tickets are exact for the math; against Redis they may drift by the real
 * time that passes between steps (a few milliseconds, at most a few hundredths of a unit), so the
 * rows keep every decision at least 0.1 unit away from an edge.
 */
final class TokenBucketSpecification {
  static final BucketSpec SPEC = new BucketSpec(10, 10, 1_000_000);

  /**
   * @param expectGranted units charged
   * @param expectLevel   level before the charge, after refill
   * @param expectTicketMillis when nothing is granted, time until the event's turn
   */
  record Step(String why, long advanceMillis, int want, int need, boolean holder,
              int expectGranted, double expectLevel, long expectTicketMillis) {}

  static final List<Step> STEPS = List.of(
      new Step("a new bucket is full: one unit is granted from 10", 0, 1, 1, false, 1, 10, 0),
      new Step("a lease takes the nine it asked for", 0, 9, 1, false, 9, 9, 0),
      new Step("an empty bucket reserves the next unit, due in 100 ms", 0, 1, 1, false, 1, 0, 0),
      new Step("cost 5 fits in the horizon (debt 6 of at most 10)", 0, 5, 5, false, 5, -1, 0),
      new Step("cost 5 more would be debt 11: not charged, a ticket in 100 ms", 0, 5, 5, false, 0, -6, 100),
      new Step("cost 3 still fits beside the line (debt 9)", 0, 3, 3, false, 3, -6, 0),
      new Step("half a second later the ticket holder is charged", 500, 5, 5, true, 5, -4, 0),
      new Step("cost 8 does not fit: its turn opens in 700 ms", 0, 8, 8, false, 0, -9, 700),
      new Step("one unit still fits", 0, 1, 1, false, 1, -9, 0),
      new Step("cost 2 queues behind the line: 700 ms + 800 ms", 0, 2, 2, false, 0, -10, 1500),
      new Step("ten seconds later the bucket is full again, never more", 10_000, 10, 1, false, 10, 10, 0),
      new Step("a want beyond what fits is granted in part", 0, 25, 2, false, 10, 0, 0),
      new Step("the clock going back a second refills nothing", -1000, 1, 1, false, 0, -10, 100));

  private TokenBucketSpecification() {}
}
