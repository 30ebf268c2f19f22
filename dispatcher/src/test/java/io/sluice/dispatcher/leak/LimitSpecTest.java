package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.dispatcher.leak.LimitSpecification.Step;
import io.sluice.testkit.SpecTable;
import io.sluice.testkit.SpecTable.Implementation;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link LimitSpecification} on the implementations that run without Redis, exactly (every step
 * at one instant): {@link LimitMath} as Redis keeps it, with windows of a minute and of an hour,
 * and {@link LocalLeakyBucket} at a share of 1, whose stand-in for Redis begins where the table
 * loses Redis's data.
 */
class LimitSpecTest {
  static final SpecTable<Step> TABLE = SpecTable.of(LimitSpecification.STEPS, Step::why);
  private static final long NOW = 1_700_000_000_000_000L;
  private static final LeakConfig CONFIG = LeakSpecification.CONFIG;

  @TestFactory
  Stream<DynamicContainer> limitSpecification() {
    return TABLE.over(
        new Implementation<>("LimitMath (losable, as in Redis)", () -> onMath(LimitSpecification.LIMITS)),
        new Implementation<>("LimitMath, windows of an hour (sub-window counters)",
            () -> onMath(LimitSpecification.COARSE_LIMITS)),
        new Implementation<>("LocalLeakyBucket (share 1)", LimitSpecTest::onLocal));
  }

  /** Every first slot exactly where the table puts it. */
  static LimitSpecification.SlotCheck exactly() {
    return (step, answer, first) -> assertEquals(step.expectAtMillis() * 1000, answer.firstSlotMicros() - first,
        "first slot");
  }

  private static SpecTable.Run<Step> onMath(ProviderLimits limits) {
    LimitMath losable = new LimitMath(new LeakMath(CONFIG, LeakMath.Memory.LOSABLE));
    return new LimitSpecification.SubjectRun(new LimitSpecification.Subject() {
      /** The table's leak has a last slot long past. */
      private LeakState state = new LeakState(0, 1, LeakState.NEVER, LeakState.NEVER, LeakState.NEVER);
      private WindowLedger kept = new WindowLedger();
      /** When the provider's keys were found lost: 0 never, -1 at the next claim (as the script). */
      private long lostAt;

      @Override
      public SlotClaim claim(LimitedClaim request) {
        if (lostAt < 0) {
          lostAt = NOW;
        }
        LeakMath.ClaimStep r = losable.claim(state, kept, NOW, lostAt, limits, request);
        state = r.next();
        return r.claim();
      }

      @Override
      public void settle(long slotMicros, long reserved, long actual) {
        LimitSpecification.settle(kept, limits, slotMicros, reserved, actual);
      }

      @Override
      public void release(String leaseId) {
        kept.release(leaseId);
      }

      @Override
      public void wipe() {
        kept = new WindowLedger();
        state = LeakState.EMPTY;
        lostAt = -1;
      }
    }, exactly());
  }

  private static SpecTable.Run<Step> onLocal() {
    LocalLeakyBucket local = new LocalLeakyBucket(CONFIG, 1, () -> NOW);
    ProviderLimits limits = LimitSpecification.LIMITS;
    return new LimitSpecification.SubjectRun(new LimitSpecification.Subject() {
      @Override
      public SlotClaim claim(LimitedClaim request) {
        return local.claim("spec-api", limits, request).toCompletableFuture().join();
      }

      @Override
      public void settle(long slotMicros, long reserved, long actual) {
        local.settle("spec-api", limits, slotMicros, reserved, actual).toCompletableFuture().join();
      }

      @Override
      public void release(String leaseId) {
        local.release("spec-api", leaseId).toCompletableFuture().join();
      }

      @Override
      public void wipe() {
        local.standingInForRedis("spec-api");
      }
    }, exactly());
  }
}
