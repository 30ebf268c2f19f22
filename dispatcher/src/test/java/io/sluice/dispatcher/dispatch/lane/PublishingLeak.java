package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitedClaim;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.leak.SlotClaim;
import io.sluice.dispatcher.leak.ThrottleDecision;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A leak for lane tests: claims, throttles, releases and settles go to {@code leak}; each
 * publication of busy tenants ({@link LeakyBucket#busyTenants}) is counted and answered as the
 * test says (the sums over every member, or a stage that never completes: a lost answer).
 */
final class PublishingLeak implements LeakyBucket {
  /** How a publication is answered. */
  interface Answers {
    CompletionStage<Map<String, Integer>> answer(String member, Map<String, Integer> busyByTier);
  }

  private final LeakyBucket leak;
  private final Answers answers;
  private int publications;

  PublishingLeak(LeakyBucket leak, Answers answers) {
    this.leak = leak;
    this.answers = answers;
  }

  /** How many publications the lanes sent. */
  int publications() {
    return publications;
  }

  @Override
  public CompletionStage<Map<String, Integer>> busyTenants(String provider, String member,
      Map<String, Integer> busyByTier, long ttlMicros) {
    publications++;
    return answers.answer(member, busyByTier);
  }

  @Override
  public CompletionStage<SlotClaim> claim(String provider, double ratePerSecond, int wanted,
      long lookaheadMicros) {
    return leak.claim(provider, ratePerSecond, wanted, lookaheadMicros);
  }

  @Override
  public CompletionStage<ThrottleDecision> throttle(String provider, double ratePerSecond,
      long retryAfterMillis, long startedAtMicros) {
    return leak.throttle(provider, ratePerSecond, retryAfterMillis, startedAtMicros);
  }

  @Override
  public CompletionStage<SlotClaim> claim(String provider, ProviderLimits limits,
      LimitedClaim request) {
    return leak.claim(provider, limits, request);
  }

  @Override
  public CompletionStage<Void> release(String provider, String leaseId) {
    return leak.release(provider, leaseId);
  }

  @Override
  public CompletionStage<Void> settle(String provider, ProviderLimits limits, long slotMicros,
      long reserved, long actual) {
    return leak.settle(provider, limits, slotMicros, reserved, actual);
  }
}
