package io.sluice.gate.limiter;

import java.util.List;

/**
 * One table, the behaviour of an event charged against two rules at once, run over every
 * implementation ({@link io.sluice.testkit.SpecTable}): the Java math and the in-memory store
 * ({@link QuotaRulesSpecTest}), {@code quota_rules.lua} on a real Redis, alone and in a batch
 * ({@link QuotaRulesScriptIT}). There is no local fallback for multi-rule events: while Redis is
 * away they are held back ({@link MultiRuleLimiter}). Rule A: capacity 5, refill 10/s (a tenant's quota toward a
 * provider); rule B: capacity 3, refill 1/s (the tenant across all providers). Each step first
 * moves time by {@code advanceMillis}, then asks for {@code need} units of both.
 *
 * <p>Against Redis, real time passing between steps only adds refill; every refusal below is at
 * least 0.1 unit of B (100 ms) away from its edge.
 */
final class QuotaRulesSpecification {
  static final List<BucketSpec> SPECS = List.of(new BucketSpec(5, 10, 0), new BucketSpec(3, 1, 0));

  record Step(String why, long advanceMillis, int need, int expectGranted, double levelA, double levelB,
              long expectWaitMillis) {}

  static final List<Step> STEPS = List.of(
      new Step("both full: both pay", 0, 1, 1, 5, 3, 0),
      new Step("both hold 2: both pay", 0, 2, 2, 4, 2, 0),
      new Step("B is empty: refused, and A is not charged either", 0, 1, 0, 2, 0, 1000),
      new Step("A refilled, B half: still refused, A untouched by the refusal", 500, 1, 0, 5, 0.5, 500),
      new Step("B holds 1: both pay", 500, 1, 1, 5, 1, 0),
      new Step("cost 6 beyond both capacities: waits for the later one to be full (B, 3 s)", 0, 6, 0, 4, 0, 3000),
      new Step("both full: the cost beyond capacity is paid, both go below zero", 3000, 6, 6, 5, 3, 0),
      new Step("A full again, B at -2: the wait is B's, 3 s", 1000, 1, 0, 5, -2, 3000));
}
