package io.sluice.dispatcher.leak;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A provider's leak: the slots at which calls to it may start, spaced {@code 1/rate} apart and
 * shared by every dispatcher instance. One implementation keeps the schedule in Redis (one key per
 * provider); another keeps it in process for when Redis is down.
 *
 * <p>Every instant is on the bucket's clock (Redis {@code TIME}, in microseconds), and every claim
 * says what that clock read, so a caller converts a slot to a local delay ({@code slot - now})
 * without comparing clocks across machines.
 */
public interface LeakyBucket {
  /**
   * Claims up to {@code wanted} consecutive slots, each no later than the bucket's now plus
   * {@code lookaheadMicros}. Slots granted are spent whether or not the caller uses them; a slot is
   * never handed out twice, across all instances.
   *
   * @param ratePerSecond the configured leak rate; a 429 cut lowers the effective rate below it
   */
  CompletionStage<SlotClaim> claim(String provider, double ratePerSecond, int wanted,
      long lookaheadMicros);

  /**
   * Tells the bucket the provider answered 429 or 503: no slot starts before
   * {@code now + retryAfterMillis}. The rate is cut multiplicatively only for a repeat: a call
   * claimed at or after the previous pause ended, less than the recovery ago. A single 429 costs
   * no more than the pause it asked for (see {@link LeakMath}).
   *
   * @param startedAtMicros when the throttled call's slot was claimed, on the bucket's clock
   */
  default CompletionStage<Void> throttled(String provider, double ratePerSecond, long retryAfterMillis,
      long startedAtMicros) {
    return throttle(provider, ratePerSecond, retryAfterMillis, startedAtMicros).thenApply(decision -> null);
  }

  /**
   * {@link #throttled}, saying what it did: whether the rate was cut, the factor now in force and
   * until when calls are paused (for logs and metrics).
   *
   * <p>{@code startedAtMicros}: the {@link SlotClaim#nowMicros()} of the claim that granted the
   * call's slot: a slot claimed before a pause ended may start (within the lookahead) after it,
   * and its 429 is then one more piece of the same evidence, not a repeat.
   */
  CompletionStage<ThrottleDecision> throttle(String provider, double ratePerSecond, long retryAfterMillis,
      long startedAtMicros);

  /**
   * Claims up to {@code request.wanted()} slots that satisfy EVERY limit of {@code limits} at once,
   * atomically across all instances: the leak's spacing and pause, every calls and cost window and
   * the concurrency (see {@link LimitMath}). A slot is granted only if every limit allows it; a
   * refused slot consumes nothing in any limit. With only a rate this is
   * {@link #claim(String, double, int, long)}.
   */
  CompletionStage<SlotClaim> claim(String provider, ProviderLimits limits, LimitedClaim request);

  /**
   * {@link #claim(String, double, int, long)}, each slot also one of the provider's total line,
   * taken at the same instant in the same atomic step ({@link ProviderTotal}).
   */
  default CompletionStage<SlotClaim> claim(String lane, double ratePerSecond, int wanted,
      long lookaheadMicros, ProviderTotal total) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no total line");
  }

  /**
   * {@link #claim(String, ProviderLimits, LimitedClaim)}, each slot also one of the provider's
   * total line, taken at the same instant in the same atomic step ({@link ProviderTotal}).
   */
  default CompletionStage<SlotClaim> claim(String lane, ProviderLimits limits,
      LimitedClaim request, ProviderTotal total) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " has no total line");
  }

  /**
   * Gives back the concurrency lease a granted slot holds ({@link LimitedClaim#leaseId}), when its
   * call has ended or the slot went unused. A lease never released expires on its own.
   */
  CompletionStage<Void> release(String provider, String leaseId);

  /**
   * The event sent in a slot of a limited claim cost {@code actual}, less than the slot reserved:
   * gives the difference back to every cost window ({@link WindowLedger#settle}). Optional for
   * correctness (without it the reservation stays charged, which is conservative); it is what lets
   * a lane reserve the dearest queued cost and still use a cost window fully.
   */
  CompletionStage<Void> settle(String provider, ProviderLimits limits, long slotMicros,
      long reserved, long actual);

  /**
   * Publishes how many busy tenants (tenants with work queued) of each tier one lane holds for
   * {@code provider}, as {@code member}, and answers the same counts summed over every member
   * whose entry is live, this one included. Instances sharing a provider split its leak by these
   * counts ({@link io.sluice.dispatcher.fair.GlobalShare}). An entry lives {@code ttlMicros}
   * unless published again, so a member that stops (or dies) drops out on its own; an empty map
   * withdraws it at once.
   *
   * <p>The default is for a leak no other instance shares: the sums are this member's counts.
   */
  default CompletionStage<Map<String, Integer>> busyTenants(String provider, String member,
      Map<String, Integer> busyByTier, long ttlMicros) {
    return CompletableFuture.completedFuture(Map.copyOf(busyByTier));
  }
}
