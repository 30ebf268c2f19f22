package io.sluice.gate.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.testkit.SpecTable;
import io.sluice.testkit.SpecTable.Implementation;
import io.sluice.gate.limiter.TokenBucketSpecification.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link TokenBucketSpecification} on the implementations that run without Redis, on a clock the
 * test moves: {@link TokenBucketMath} exactly, and the {@code local} fallback {@link LocalBuckets}
 * at a share of 1 on the rows it is asked (the table's {@code notAskedLocally} and {@code local}).
 */
class TokenBucketSpecTest {
  static final SpecTable<Step> TABLE = SpecTable.of(TokenBucketSpecification.STEPS, Step::why);
  private static final long T0 = 1_700_000_000_000_000L;

  @TestFactory
  Stream<DynamicContainer> tokenBucketSpecification() {
    return TABLE.over(
        new Implementation<>("TokenBucketMath", MathRun::new),
        new Implementation<>("LocalBuckets (share 1)", LocalRun::new,
            step -> step.notAskedLocally() != null ? "not asked: " + step.notAskedLocally()
                : step.local() == null ? null : step.local().why()));
  }

  /** The math, every number exactly the row's. */
  private static final class MathRun implements SpecTable.Run<Step> {
    private BucketState state;
    private long now = T0;
    private long lost;
    private final List<Acquisition> answers = new ArrayList<>();

    @Override
    public void step(int index, Step step) {
      now += step.advanceMillis() * 1000;
      if (step.loss() != TokenBucketSpecification.Loss.NONE) {
        state = null;
        lost = step.loss() == TokenBucketSpecification.Loss.SLOT ? now : lost;
      }
      AcquireRequest request = step.releaseStep() < 0 ? step.request() : step.request(answers.get(step.releaseStep()), 0);
      TokenBucketMath.Step result = TokenBucketMath.acquire(state, step.spec(), request, now, lost);
      Acquisition a = result.acquisition();
      assertEquals(step.expectGranted(), a.granted(), "granted");
      assertEquals(step.expectLevel(), a.levelBefore(), 1e-9, "level");
      assertEquals(step.expectTicketMillis() * 1000, a.ticketMicros(), 1, "ticket");
      assertEquals(a.granted() > step.need(), a.leaseId() > 0, "a lease exactly when units beyond need");
      if (step.expectDueMillis() >= 0) {
        assertEquals(step.expectDueMillis() * 1000, a.dueOfUnit(step.need(), step.spec()) - now, 1, "its last unit due");
      }
      answers.add(a);
      state = result.next();
      assertTrue(state.level() + state.held() <= step.spec().capacity() + 1e-9,
          "level + held never exceeds capacity");
    }
  }

  /**
   * The local fallback, asked the rows it is asked. A row it is not asked is Redis's answer: the
   * next row asked starts from the level Redis holds then (the row's level, as Redis's last answer,
   * {@link KnownLevel}); rows asked in a row go on from the local bucket's own state.
   */
  private static final class LocalRun implements SpecTable.Run<Step> {
    private final long[] nanos = {5_000_000_000L};
    private final LocalBuckets local = new LocalBuckets(() -> 1.0, () -> nanos[0]);
    private final BucketKey key = new BucketKey("spec-api", "local");
    private long nowMillis = T0 / 1000;
    private KnownLevel known;
    private boolean redisAnsweredLast = true;

    @Override
    public void step(int index, Step step) {
      nowMillis += step.advanceMillis();
      nanos[0] += Math.max(0, step.advanceMillis()) * 1_000_000;
      if (step.notAskedLocally() != null) {
        redisAnsweredLast = true;
        return;
      }
      if (redisAnsweredLast) {
        known = new KnownLevel(step.expectLevel(), nanos[0]);
        redisAnsweredLast = false;
      }
      LimiterDecision d = local.decide(key, step.spec(), step.need(), nowMillis, step.shadow(), known);
      if (step.local() != null && step.local().heldBack()) {
        assertInstanceOf(LimiterDecision.Unavailable.class, d, "held back, not charged");
        return;
      }
      long ticketMillis = step.local() == null ? step.expectTicketMillis() : step.local().ticketMillis();
      long microsPerUnit = (long) step.spec().microsPerUnit();
      if (step.expectGranted() == 0) {
        // Only shadow rows are refused with a time (an enforced one is held back: local()).
        assertEquals(new LimiterDecision.WouldDefer(nowMillis + ticketMillis), d, "the wait it would have had");
      } else if (step.expectLevel() >= step.need()) {
        assertEquals(new LimiterDecision.Admit(nowMillis), d, "admitted now");
      } else {
        long dueMillis = step.expectDueMillis() >= 0 ? (long) Math.ceil(step.expectDueMillis())
            : (long) Math.ceil((step.need() - step.expectLevel()) * microsPerUnit / 1000);
        assertEquals(new LimiterDecision.Reserved(nowMillis + dueMillis), d, "reserved when its last unit is due");
      }
    }
  }
}
