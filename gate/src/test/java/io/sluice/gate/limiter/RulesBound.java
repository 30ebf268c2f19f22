package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;

/**
 * Plays a {@link QuotaHistory} for a tenant with a per-attribute rule, as the gate charges it
 * ({@code ChargedRules}): every event to the tenant's overall rule, an event matching the
 * attribute to the attribute's rule too, both in one {@code quota_rules.lua} call; and says
 * whether each rule keeps {@code capacity + refill * T} in every window of the admission instants.
 *
 * <p>Each instance keeps a lease across rules per rule set ({@link RulesLease}, on a clock with no
 * round trip) and hands its units out to events of that set, giving it back with its next call
 * for the set. A refused event comes back after the wait the script named, plus some lateness.
 */
final class RulesBound {
  static final String OVERALL = "overall";
  static final String ATTRIBUTE = "refunds";

  private record Retry(long micros, int instance, int cost, boolean attribute) {}

  private RulesBound() {}

  /**
   * The units each rule admitted, by rule, when {@code history} runs on {@code bucket}; and the
   * changes of the overall rule's rate added to {@code changes}.
   */
  static Map<String, List<QuotaBound.Unit>> play(QuotaHistory history, RulesBucket bucket, String tenant,
      long startMicros, List<long[]> changes) throws Exception {
    RuleBucket overall = new RuleBucket(OVERALL, RuleKeys.overall(tenant), history.spec());
    changes.add(new long[] {Long.MIN_VALUE / 4, 0});
    RuleBucket attribute = new RuleBucket(ATTRIBUTE, RuleKeys.rule(tenant, ATTRIBUTE), history.attributeSpec());
    Map<String, List<QuotaBound.Unit>> admitted = new HashMap<>(
        Map.of(OVERALL, new ArrayList<>(), ATTRIBUTE, new ArrayList<>()));
    // Per instance, a lease for each rule set: [0] overall alone, [1] overall and attribute.
    RulesLease[][] leases = new RulesLease[history.instances()][2];
    PriorityQueue<Retry> retries = new PriorityQueue<>(Comparator.comparingLong(Retry::micros));
    long now = startMicros;
    int late = 0;
    for (QuotaHistory.Step step : history.steps()) {
      now += step.gapMicros();
      while (!retries.isEmpty() && retries.peek().micros() <= now) {
        Retry r = retries.poll();
        List<RuleBucket> rules = r.attribute() ? List.of(overall, attribute) : List.of(overall);
        RulesAcquisition a = bucket.acquire(new TokenBucketStore.RulesCall(rules, r.cost(), r.cost(),
            QuotaHistory.HOLD_MICROS, null), r.micros());
        if (a.isGranted()) {
          admit(admitted, rules, r.cost(), r.micros());
        } else {
          retries.add(new Retry(a.nowMicros() + a.waitMicros()
              + history.lateness().get(late++ % history.lateness().size()), r.instance(), r.cost(), r.attribute()));
        }
      }
      if (step instanceof QuotaHistory.Wipe) {
        bucket.wipe();
        continue;
      }
      if (step instanceof QuotaHistory.Change c) {
        overall = new RuleBucket(OVERALL, overall.redisKey(), history.specAt(c.rate()));
        // The bucket takes the new rate from its last charge; leases across a rule whose terms
        // changed are dropped (MultiRuleLimiter).
        long updated = bucket.updatedMicros(overall.redisKey());
        changes.add(new long[] {updated < 0 ? now : updated, c.rate()});
        for (RulesLease[] sets : leases) {
          Arrays.fill(sets, null);
        }
        continue;
      }
      QuotaHistory.Event e = (QuotaHistory.Event) step;
      int set = e.attribute() ? 1 : 0;
      List<RuleBucket> rules = e.attribute() ? List.of(overall, attribute) : List.of(overall);
      RulesLease lease = leases[e.instance()][set];
      if (lease != null && lease.take(e.cost(), now * 1000) >= 0) {
        admit(admitted, rules, e.cost(), now);
        continue;
      }
      RulesRelease release = lease == null ? null : lease.release(now * 1000);
      int want = e.cost() + e.extra();
      // The hold named on every call, as the gate does (MultiRuleLimiter): a lost bucket may have
      // been leased out.
      RulesAcquisition a = bucket.acquire(new TokenBucketStore.RulesCall(rules, e.cost(), want,
          QuotaHistory.HOLD_MICROS, release), now);
      leases[e.instance()][set] = null;
      if (!a.isGranted()) {
        retries.add(new Retry(a.nowMicros() + a.waitMicros()
            + history.lateness().get(late++ % history.lateness().size()), e.instance(), e.cost(), e.attribute()));
        continue;
      }
      admit(admitted, rules, e.cost(), now);
      if (a.leaseUnits() > 0) {
        leases[e.instance()][set] = new RulesLease(a, QuotaHistory.USE_MICROS, now * 1000, now * 1000);
      }
    }
    return admitted;
  }

  private static void admit(Map<String, List<QuotaBound.Unit>> admitted, List<RuleBucket> rules, int cost,
      long micros) {
    for (RuleBucket rule : rules) {
      for (int j = 0; j < cost; j++) {
        admitted.get(rule.rule()).add(new QuotaBound.Unit(micros));
      }
    }
  }

  /**
   * The first rule and window over its bound, described; empty if none. The overall rule's rate
   * changes: it sells no reservations, so the rate in force at each instant bounds it, nothing
   * more ({@link ChangingRateBound} with a reach of 0 and no unit per change).
   */
  static Optional<String> firstExcess(Map<String, List<QuotaBound.Unit>> admitted, QuotaHistory history,
      List<long[]> changes) {
    return ChangingRateBound.firstExcess(admitted.get(OVERALL).stream().map(QuotaBound.Unit::micros).toList(),
            history.spec().capacity(), history.rates(), changes, 0, 0).map(s -> OVERALL + ": " + s)
        .or(() -> QuotaBound.firstExcess(admitted.get(ATTRIBUTE), history.attributeSpec())
            .map(s -> ATTRIBUTE + ": " + s));
  }
}
