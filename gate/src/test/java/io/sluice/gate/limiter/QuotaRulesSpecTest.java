package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.testkit.SpecTable;
import io.sluice.testkit.SpecTable.Implementation;
import io.sluice.gate.limiter.QuotaRulesSpecification.Step;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link QuotaRulesSpecification} on the implementations that run without Redis, exactly:
 * {@link QuotaRulesMath}, and {@link InMemoryTokenBucketStore}'s multi-rule path (the store the
 * topology tests route through, held to the same table).
 */
class QuotaRulesSpecTest {
  static final SpecTable<Step> TABLE = SpecTable.of(QuotaRulesSpecification.STEPS, Step::why);
  private static final long T0 = 1_700_000_000_000_000L;

  @TestFactory
  Stream<DynamicContainer> quotaRulesSpecification() {
    return TABLE.over(
        new Implementation<>("QuotaRulesMath", MathRun::new),
        new Implementation<>("InMemoryTokenBucketStore", StoreRun::new));
  }

  /** Checks an answer against the row: granted, both levels and the wait, exactly. */
  static void assertRow(Step step, RulesAcquisition a) {
    assertEquals(step.expectGranted(), a.granted(), "granted");
    assertEquals(step.levelA(), a.levels().get(0), 1e-9, "level of A");
    assertEquals(step.levelB(), a.levels().get(1), 1e-9, "level of B");
    assertEquals(step.expectWaitMillis() * 1000, a.waitMicros(), "wait");
  }

  private static final class MathRun implements SpecTable.Run<Step> {
    private List<QuotaRulesMath.Level> states = Arrays.asList(null, null);
    private long now = T0;

    @Override
    public void step(int index, Step step) {
      now += step.advanceMillis() * 1000;
      QuotaRulesMath.Step s = QuotaRulesMath.acquire(states, QuotaRulesSpecification.SPECS, step.need(), now, 0);
      assertRow(step, s.acquisition());
      states = s.next();
    }
  }

  private static final class StoreRun implements SpecTable.Run<Step> {
    private final long[] now = {T0};
    private final InMemoryTokenBucketStore store = new InMemoryTokenBucketStore(() -> now[0]);
    private final List<RuleBucket> rules = List.of(
        new RuleBucket("provider", RuleKeys.provider("acme", "spec-api"), QuotaRulesSpecification.SPECS.get(0)),
        new RuleBucket("overall", RuleKeys.overall("acme"), QuotaRulesSpecification.SPECS.get(1)));

    @Override
    public void step(int index, Step step) {
      now[0] += step.advanceMillis() * 1000;
      assertRow(step, store.acquireAll(rules, step.need()).toCompletableFuture().join());
    }
  }
}
