package io.sluice.gate.limiter;

import java.util.List;

/**
 * One table, leases across rules ({@code quota_rules.lua}'s "Leases across rules"), run over
 * {@link QuotaRulesMath}, {@link InMemoryTokenBucketStore} ({@link QuotaRulesLeaseSpecTest}) and the
 * script on a real redis-server, alone and in a batch ({@link QuotaRulesScriptIT}). The rules of
 * {@link QuotaRulesSpecification}: A capacity 5, refill 10/s; B capacity 3, refill 1/s. Each step
 * first moves time by {@code advanceMillis}, then asks for {@code need} units of both and {@code
 * want} in all (a lease of the rest, held {@link #HOLD_MILLIS}), giving back first the last lease
 * granted with {@code releaseUsed} of its units used (-1: nothing given back). The levels are
 * before the event, after refill and release.
 */
final class QuotaRulesLeaseSpecification {
  static final long HOLD_MILLIS = 2000;

  record Step(String why, long advanceMillis, int need, int want, int releaseUsed, int expectGranted,
              int expectLease, double levelA, double levelB, long expectWaitMillis) {}

  static final List<Step> STEPS = List.of(
      new Step("both full: the event, and a lease of what the poorer rule holds beyond it (B: 2)",
          0, 1, 5, -1, 1, 2, 5, 3, 0),
      new Step("a lease's units lower both caps: A refills only to 5 - 2, B to 3 - 2",
          1000, 1, 1, -1, 1, 0, 3, 1, 0),
      new Step("the lease given back with 1 of its 2 used: the unused unit returns to both, the caps rise",
          500, 1, 1, 1, 1, 0, 4, 1.5, 0),
      new Step("B cannot pay: refused, no lease, neither rule charged",
          0, 1, 3, -1, 0, 0, 3, 0.5, 500),
      new Step("B holds no whole unit beyond the event: admitted, no lease",
          500, 1, 3, -1, 1, 0, 5, 1, 0),
      new Step("a lease of 1, all B holds beyond the event", 2000, 1, 4, -1, 1, 1, 5, 2, 0),
      new Step("never given back: at its deadline the caps rise and its unused unit is lost",
          3000, 1, 1, -1, 1, 0, 5, 3, 0),
      new Step("a lease given back after its deadline: nothing returns (the bucket let it go)",
          0, 2, 2, 0, 2, 0, 4, 2, 0));
}
