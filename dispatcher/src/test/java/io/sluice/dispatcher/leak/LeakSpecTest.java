package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.dispatcher.leak.LeakSpecification.Step;
import io.sluice.testkit.SpecTable;
import io.sluice.testkit.SpecTable.Implementation;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link LeakSpecification} on the implementations that run without Redis, exactly (their clocks
 * are the test's): {@link LeakMath} as Redis keeps it ({@link LeakMath.Memory#LOSABLE}, the
 * script's mirror), and {@link LocalLeakyBucket} (the leak of {@code onRedisDown: local}) at a share
 * of 1, whose state cannot be lost (the table's {@code whenKept} column).
 */
class LeakSpecTest {
  static final SpecTable<Step> TABLE = SpecTable.of(LeakSpecification.STEPS, Step::why);
  private static final long T0 = 1_700_000_000_000_000L;
  private static final long MS = 1000;

  @TestFactory
  Stream<DynamicContainer> leakSpecification() {
    return TABLE.over(
        new Implementation<>("LeakMath (losable, as in Redis)", () -> new ExactRun(new OnMath(
            new LeakMath(LeakSpecification.CONFIG, LeakMath.Memory.LOSABLE)), false)),
        new Implementation<>("LocalLeakyBucket (share 1)", () -> new ExactRun(new OnLocal(), true),
            step -> step.whenKept() == null ? null : step.whenKept().why()));
  }

  /** The leak under test, deciding at a time the run gives. */
  private interface Leak {
    SlotClaim claim(long nowMicros, int wanted);

    ThrottleDecision throttled(long nowMicros, long retryAfterMillis, long startedAtMicros);
  }

  private static final class OnMath implements Leak {
    private final LeakMath math;
    private LeakState state = LeakState.EMPTY;

    OnMath(LeakMath math) {
      this.math = math;
    }

    @Override
    public SlotClaim claim(long nowMicros, int wanted) {
      LeakMath.ClaimStep r = math.claim(state, nowMicros, LeakSpecification.RATE, wanted,
          LeakSpecification.LOOKAHEAD_MICROS);
      state = r.next();
      return r.claim();
    }

    @Override
    public ThrottleDecision throttled(long nowMicros, long retryAfterMillis, long startedAtMicros) {
      LeakMath.ThrottleStep r = math.throttled(state, nowMicros, LeakSpecification.RATE, retryAfterMillis,
          startedAtMicros);
      state = r.next();
      return r.decision();
    }
  }

  private static final class OnLocal implements Leak {
    private final AtomicLong clock = new AtomicLong();
    private final LocalLeakyBucket leak = new LocalLeakyBucket(LeakSpecification.CONFIG, 1, clock::get);

    @Override
    public SlotClaim claim(long nowMicros, int wanted) {
      clock.set(nowMicros);
      return leak.claim("spec-api", LeakSpecification.RATE, wanted, LeakSpecification.LOOKAHEAD_MICROS)
          .toCompletableFuture().join();
    }

    @Override
    public ThrottleDecision throttled(long nowMicros, long retryAfterMillis, long startedAtMicros) {
      clock.set(nowMicros);
      return leak.throttle("spec-api", LeakSpecification.RATE, retryAfterMillis, startedAtMicros)
          .toCompletableFuture().join();
    }
  }

  /** The table on a clock the test moves: every answer exactly the row's. */
  private static final class ExactRun implements SpecTable.Run<Step> {
    private final Leak leak;
    private final boolean kept;
    private long now = T0;

    ExactRun(Leak leak, boolean kept) {
      this.leak = leak;
      this.kept = kept;
    }

    @Override
    public void step(int index, Step row) {
      Step step = kept ? row.kept() : row;
      long stepTime = now + step.advanceMillis() * MS;
      if (step.kind() == LeakSpecification.Kind.CLAIM) {
        SlotClaim c = leak.claim(stepTime, step.wanted());
        assertEquals(step.expectGranted(), c.granted(), "granted");
        long at = c.granted() > 0 ? c.firstSlotMicros() : c.retryAtMicros();
        assertEquals(step.expectAtMillis() * MS, at - c.nowMicros(), "first slot, or retry, after now");
        assertEquals(step.expectFactor(), c.rateFactor(), 1e-12, "rate factor");
        now = c.nowMicros();
      } else {
        ThrottleDecision d = leak.throttled(stepTime, step.retryAfterMillis(), stepTime - step.startedAgoMillis() * MS);
        assertEquals(step.expectGranted() == 1, d.cut(), "cut");
        assertEquals(step.expectAtMillis() * MS, d.pausedUntilMicros() - d.nowMicros(), "pause after now");
        assertEquals(step.expectFactor(), d.rateFactor(), 1e-12, "rate factor");
        now = d.nowMicros();
      }
    }
  }
}
