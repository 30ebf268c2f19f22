package io.sluice.dispatcher.feedback;

import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitedClaim;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.leak.SlotClaim;
import io.sluice.dispatcher.leak.ThrottleDecision;
import java.util.concurrent.CompletionStage;

/**
 * A provider's leak at the pace its learned limits allow: every claim asks the wrapped leak for
 * {@link LimitLearner#ratePerSecond} instead of the configured rate, so every instance, sharing the
 * leak in Redis and the learned limits through it too, paces the provider at the lowest of the
 * configured rate and what the provider announced. Slots already granted keep their times; the next
 * claim is at the new pace.
 */
public final class LearningLeakyBucket implements LeakyBucket {
  private final LeakyBucket leak;
  private final LimitLearner learner;

  public LearningLeakyBucket(LeakyBucket leak, LimitLearner learner) {
    this.leak = leak;
    this.learner = learner;
  }

  @Override
  public CompletionStage<SlotClaim> claim(String provider, double ratePerSecond, int wanted,
      long lookaheadMicros) {
    return leak.claim(provider, learner.ratePerSecond(provider, ratePerSecond), wanted,
        lookaheadMicros);
  }

  /**
   * The multi-limit claim at the learned pace (the limits' rate lowered); the learned windows
   * themselves come through the lane's {@link LearningLimitSource}.
   */
  @Override
  public CompletionStage<SlotClaim> claim(String provider, ProviderLimits limits,
      LimitedClaim request) {
    return leak.claim(provider, LearningLimitSource.paced(limits,
        learner.ratePerSecond(provider, limits.ratePerSecond())), request);
  }

  @Override
  public CompletionStage<Void> release(String provider, String leaseId) {
    return leak.release(provider, leaseId);
  }

  @Override
  public CompletionStage<ThrottleDecision> throttle(String provider, double ratePerSecond,
      long retryAfterMillis, long startedAtMicros) {
    return leak.throttle(provider, learner.ratePerSecond(provider, ratePerSecond),
        retryAfterMillis, startedAtMicros);
  }
}
