package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.config.ProviderLimit;
import io.sluice.dispatcher.leak.TotalSpecification.Step;
import io.sluice.testkit.SpecTable;
import io.sluice.testkit.SpecTable.Implementation;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link TotalSpecification} on the implementations that run without Redis, exactly: the joint
 * claim of {@link LeakMath} and of {@link LimitMath} (with a window that never binds, so the
 * limits' path is the one taken) as Redis keeps them, and {@link LocalLeakyBucket} (the leak of
 * {@code onRedisDown: local}) at a share of 1, whose state cannot be lost.
 */
class TotalSpecTest {
  static final SpecTable<Step> TABLE = SpecTable.of(TotalSpecification.STEPS, Step::why);
  private static final long T0 = 1_700_000_000_000_000L;
  private static final long MS = 1000;
  /** A calls window far above the rates: the limits' path, deciding as the leak alone does. */
  static final ProviderLimit LOOSE_WINDOW = ProviderLimit.calls(1000, Duration.ofSeconds(1),
      ProviderLimit.Window.SLIDING);

  @TestFactory
  Stream<DynamicContainer> totalSpecification() {
    return TABLE.over(
        new Implementation<>("LeakMath (losable, as in Redis)", () -> new ExactRun(new OnMath(), false)),
        new Implementation<>("LimitMath with a loose window (losable)",
            () -> new ExactRun(new OnLimitMath(), false)),
        new Implementation<>("LocalLeakyBucket (share 1)", () -> new ExactRun(new OnLocal(), true),
            step -> step.whenKept() == null ? null : step.whenKept().why()));
  }

  /** An endpoint's joint claim at a time the run gives. */
  interface Joint {
    SlotClaim claim(long nowMicros, String lane, double rate, int wanted);
  }

  static final class OnMath implements Joint {
    private final LeakMath math = new LeakMath(TotalSpecification.CONFIG, LeakMath.Memory.LOSABLE);
    private final Map<String, LeakState> lanes = new HashMap<>();
    private LeakState total = LeakState.EMPTY;

    @Override
    public SlotClaim claim(long nowMicros, String lane, double rate, int wanted) {
      LeakMath.JointStep step = math.claim(lanes.getOrDefault(lane, LeakState.EMPTY), total,
          nowMicros, rate, TotalSpecification.TOTAL_RATE, wanted, TotalSpecification.LOOKAHEAD_MICROS);
      lanes.put(lane, step.next());
      total = step.nextTotal();
      return step.claim();
    }
  }

  static final class OnLimitMath implements Joint {
    private final LimitMath math = new LimitMath(
        new LeakMath(TotalSpecification.CONFIG, LeakMath.Memory.LOSABLE));
    private final Map<String, LeakState> lanes = new HashMap<>();
    private final Map<String, WindowLedger> ledgers = new HashMap<>();
    private LeakState total = LeakState.EMPTY;

    @Override
    public SlotClaim claim(long nowMicros, String lane, double rate, int wanted) {
      LeakMath.JointStep step = math.claim(lanes.getOrDefault(lane, LeakState.EMPTY), total,
          TotalSpecification.TOTAL_RATE, ledgers.computeIfAbsent(lane, l -> new WindowLedger()),
          nowMicros, 0, new ProviderLimits(List.of(ProviderLimit.rate(rate), LOOSE_WINDOW)),
          new LimitedClaim(wanted, TotalSpecification.LOOKAHEAD_MICROS, 1, "spec", 1_000_000));
      lanes.put(lane, step.next());
      total = step.nextTotal();
      return step.claim();
    }
  }

  private static final class OnLocal implements Joint {
    private final AtomicLong clock = new AtomicLong();
    private final LocalLeakyBucket leak = new LocalLeakyBucket(TotalSpecification.CONFIG, 1, clock::get);
    private final ProviderTotal total = new ProviderTotal("spec-hooks", TotalSpecification.TOTAL_RATE);

    @Override
    public SlotClaim claim(long nowMicros, String lane, double rate, int wanted) {
      clock.set(nowMicros);
      return leak.claim(total.laneKeyName("spec-hooks/" + lane), rate, wanted,
          TotalSpecification.LOOKAHEAD_MICROS, total).toCompletableFuture().join();
    }
  }

  /** The table on a clock the test moves: every answer exactly the row's. */
  private static final class ExactRun implements SpecTable.Run<Step> {
    private final Joint leak;
    private final boolean kept;
    private long now = T0;

    ExactRun(Joint leak, boolean kept) {
      this.leak = leak;
      this.kept = kept;
    }

    @Override
    public void step(int index, Step row) {
      Step step = kept ? row.kept() : row;
      SlotClaim c = leak.claim(now + step.advanceMillis() * MS, step.lane(), step.rate(), step.wanted());
      assertEquals(step.expectGranted(), c.granted(), "granted");
      long at = c.granted() > 0 ? c.firstSlotMicros() : c.retryAtMicros();
      assertEquals(step.expectAtMillis() * MS, at - c.nowMicros(), "first slot, or retry, after now");
      assertEquals(step.expectInterval() * MS, c.intervalMicros(), "the joint spacing");
      now = c.nowMicros();
    }
  }
}
