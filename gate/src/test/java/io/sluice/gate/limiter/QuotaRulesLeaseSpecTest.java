package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.testkit.SpecTable;
import io.sluice.testkit.SpecTable.Implementation;
import io.sluice.gate.limiter.QuotaRulesLeaseSpecification.Step;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link QuotaRulesLeaseSpecification} on the implementations that run without Redis, exactly:
 * {@link QuotaRulesMath} and {@link InMemoryTokenBucketStore}'s multi-rule path.
 */
class QuotaRulesLeaseSpecTest {
  static final SpecTable<Step> TABLE = SpecTable.of(QuotaRulesLeaseSpecification.STEPS, Step::why);
  private static final long T0 = 1_700_000_000_000_000L;

  @TestFactory
  Stream<DynamicContainer> leasesAcrossRules() {
    return TABLE.over(
        new Implementation<>("QuotaRulesMath", MathRun::new),
        new Implementation<>("InMemoryTokenBucketStore", StoreRun::new));
  }

  /** Checks an answer against the row: granted, the lease, both levels and the wait, exactly. */
  static void assertRow(Step step, RulesAcquisition a) {
    assertEquals(step.expectGranted(), a.granted(), "granted");
    assertEquals(step.expectLease(), a.leaseUnits(), "units leased");
    assertEquals(step.levelA(), a.levels().get(0), 1e-9, "level of A");
    assertEquals(step.levelB(), a.levels().get(1), 1e-9, "level of B");
    assertEquals(step.expectWaitMillis() * 1000, a.waitMicros(), "wait");
  }

  /** The row's call: its need and want, and the last lease given back as it says. */
  static TokenBucketStore.RulesCall call(List<RuleBucket> rules, Step step, RulesAcquisition lastLease) {
    RulesRelease release = step.releaseUsed() < 0 || lastLease == null ? null
        : new RulesRelease(lastLease.leaseId(), lastLease.leaseEndMicros(), lastLease.leaseUnits(), step.releaseUsed());
    return new TokenBucketStore.RulesCall(rules, step.need(), step.want(),
        QuotaRulesLeaseSpecification.HOLD_MILLIS * 1000, release);
  }

  static List<RuleBucket> rules(String tenant) {
    return List.of(
        new RuleBucket("provider", RuleKeys.provider(tenant, "spec-api"), QuotaRulesSpecification.SPECS.get(0)),
        new RuleBucket("overall", RuleKeys.overall(tenant), QuotaRulesSpecification.SPECS.get(1)));
  }

  private static final class MathRun implements SpecTable.Run<Step> {
    private List<QuotaRulesMath.Level> states = Arrays.asList(null, null);
    private long now = T0;
    private RulesAcquisition lastLease;

    @Override
    public void step(int index, Step step) {
      now += step.advanceMillis() * 1000;
      QuotaRulesMath.Step s = QuotaRulesMath.acquire(states, QuotaRulesSpecification.SPECS,
          call(rules("acme"), step, lastLease), now, 0, 1);
      assertRow(step, s.acquisition());
      states = s.next();
      if (s.acquisition().leaseUnits() > 0) {
        lastLease = s.acquisition();
      }
    }
  }

  private static final class StoreRun implements SpecTable.Run<Step> {
    private final long[] now = {T0};
    private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(() -> now[0]);
    private RulesAcquisition lastLease;

    @Override
    public void step(int index, Step step) {
      now[0] += step.advanceMillis() * 1000;
      RulesAcquisition a = store.acquireAllBatch(List.of(call(rules("acme"), step, lastLease)))
          .toCompletableFuture().join().get(0);
      assertRow(step, a);
      if (a.leaseUnits() > 0) {
        lastLease = a;
      }
    }
  }
}
