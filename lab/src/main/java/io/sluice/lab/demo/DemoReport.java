package io.sluice.lab.demo;

import java.util.List;
import java.util.Map;

/**
 * The demo's figures, as {@code --report-json} writes them.
 *
 * @param durationSeconds        how long the load ran
 * @param elapsedSeconds         from the first event to the last settled one
 * @param produced               events sent (well-formed and malformed)
 * @param delivered              events in sluice.outcomes
 * @param deadLettered           events in sluice.dlq
 * @param lost                   produced - delivered - dead-lettered, reconciled id by id
 * @param lostIds                the first lost ids, if any
 * @param callsByTier            provider calls by tier
 * @param deliveredByTier        deliveries by tier
 * @param tierWeights            the configured weights
 * @param configuredLeakRate     the provider's rate, calls per second
 * @param achievedLeakRate       calls per second while the dispatcher had a backlog
 * @param saturatedSeconds       how long the dispatcher had a backlog (the achieved rate's base)
 * @param maxCallsInAnySecond    at the provider, in any 1 s window
 * @param provider429            429s the provider answered
 * @param deadLettersByReason    dead letters by reason
 * @param gateAdmitted           gate admissions (replays included)
 * @param deferred               deferrals through the ladder (gate and dispatcher)
 * @param timeline               per-second series for the plots
 */
public record DemoReport(
    double durationSeconds,
    double elapsedSeconds,
    long produced,
    long delivered,
    long deadLettered,
    long lost,
    List<String> lostIds,
    Map<String, Long> callsByTier,
    Map<String, Long> deliveredByTier,
    Map<String, Double> tierWeights,
    double configuredLeakRate,
    double achievedLeakRate,
    double saturatedSeconds,
    int maxCallsInAnySecond,
    long provider429,
    Map<String, Long> deadLettersByReason,
    long gateAdmitted,
    long deferred,
    List<Second> timeline) {

  /** One second of the run, for the plots. */
  public record Second(int second, Map<String, Long> callsByTier, long provider429,
      long backlog, long buffered) {}

  /** Achieved over configured leak rate, minus one: 0.01 is 1% fast, -0.01 1% slow. */
  public double leakError() {
    return achievedLeakRate / configuredLeakRate - 1;
  }
}
