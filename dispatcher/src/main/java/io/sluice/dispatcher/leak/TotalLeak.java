package io.sluice.dispatcher.leak;

import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The leak of an endpoint lane whose provider has a {@code totalRate}: every claim is joint, one
 * slot of the endpoint's leak and one of the provider's total line at one instant
 * ({@link ProviderTotal}), and every key of the lane goes by the provider's hash tag
 * ({@link ProviderTotal#laneKeyName}), so a claim's keys are in one cluster slot.
 */
public final class TotalLeak implements LeakyBucket {
  private final LeakyBucket leak;
  private final ProviderTotal total;

  public TotalLeak(LeakyBucket leak, ProviderTotal total) {
    this.leak = leak;
    this.total = total;
  }

  public ProviderTotal total() {
    return total;
  }

  @Override
  public CompletionStage<SlotClaim> claim(String lane, double ratePerSecond, int wanted,
      long lookaheadMicros) {
    return leak.claim(total.laneKeyName(lane), ratePerSecond, wanted, lookaheadMicros, total);
  }

  @Override
  public CompletionStage<SlotClaim> claim(String lane, ProviderLimits limits, LimitedClaim request) {
    return leak.claim(total.laneKeyName(lane), limits, request, total);
  }

  @Override
  public CompletionStage<ThrottleDecision> throttle(String lane, double ratePerSecond,
      long retryAfterMillis, long startedAtMicros) {
    return leak.throttle(total.laneKeyName(lane), ratePerSecond, retryAfterMillis, startedAtMicros);
  }

  @Override
  public CompletionStage<Void> release(String lane, String leaseId) {
    return leak.release(total.laneKeyName(lane), leaseId);
  }

  @Override
  public CompletionStage<Void> settle(String lane, ProviderLimits limits, long slotMicros,
      long reserved, long actual) {
    return leak.settle(total.laneKeyName(lane), limits, slotMicros, reserved, actual);
  }

  @Override
  public CompletionStage<Map<String, Integer>> busyTenants(String lane, String member,
      Map<String, Integer> busyByTier, long ttlMicros) {
    return leak.busyTenants(total.laneKeyName(lane), member, busyByTier, ttlMicros);
  }
}
