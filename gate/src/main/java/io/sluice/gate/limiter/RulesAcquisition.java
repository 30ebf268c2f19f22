package io.sluice.gate.limiter;

import java.util.List;

/**
 * The answer of {@code quota_rules.lua} (and of {@link QuotaRulesMath}).
 *
 * @param granted        the event's cost when every rule paid, else 0 (then no rule was charged)
 * @param nowMicros      the Redis time of the decision
 * @param waitMicros     when refused, how long until every rule could pay (the latest of the waits)
 * @param levels         each rule's level before this event, after refill, in the order asked
 * @param leaseUnits     units leased beyond the event's cost from every rule (0: no lease)
 * @param leaseEndMicros the lease's deadline, Redis time (0: no lease)
 * @param leaseId        the lease's id in every rule's bucket ("" for none)
 */
public record RulesAcquisition(int granted, long nowMicros, long waitMicros, List<Double> levels, int leaseUnits,
    long leaseEndMicros, String leaseId) {
  public RulesAcquisition {
    levels = List.copyOf(levels);
  }

  /** An answer without a lease. */
  public RulesAcquisition(int granted, long nowMicros, long waitMicros, List<Double> levels) {
    this(granted, nowMicros, waitMicros, levels, 0, 0, "");
  }

  public boolean isGranted() {
    return granted > 0;
  }
}
