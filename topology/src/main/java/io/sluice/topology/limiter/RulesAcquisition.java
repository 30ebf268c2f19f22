package io.sluice.topology.limiter;

import java.util.List;

/**
 * The answer of {@code quota_rules.lua} (and of {@link QuotaRulesMath}).
 *
 * @param granted    the event's cost when every rule paid, else 0 (then no rule was charged)
 * @param nowMicros  the Redis time of the decision
 * @param waitMicros when refused, how long until every rule could pay (the latest of the waits)
 * @param levels     each rule's level before this event, after refill, in the order asked
 */
public record RulesAcquisition(int granted, long nowMicros, long waitMicros, List<Double> levels) {
  public RulesAcquisition {
    levels = List.copyOf(levels);
  }

  public boolean isGranted() {
    return granted > 0;
  }
}
