package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ProviderLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One table, the multi-limit claim step by step, run over every implementation
 * ({@link io.sluice.testkit.SpecTable}): the Java math and the in-process {@link LocalLeakyBucket}
 * ({@link LimitSpecTest}), the Lua script on a real Redis ({@link ProviderLimitsScriptIT}); each
 * with windows of a minute ({@link #LIMITS}) and of an hour ({@link #COARSE_LIMITS}).
 *
 * <p>The provider: 100 calls/s (slots 10 ms apart), 5 calls per sliding minute, 12 cost units per
 * sliding minute, 4 calls at once; a lookahead of 1 s; its leak has a last slot long past. Every
 * step happens at (nearly) the same instant, and the minute windows are long enough that the real
 * time between steps on Redis changes no decision. Slot times are relative to the step's now.
 */
final class LimitSpecification {
  static final long LOOKAHEAD_MICROS = 1_000_000;
  static final long LEASE_MICROS = 60_000_000;
  static final ProviderLimits LIMITS = new ProviderLimits(List.of(
      ProviderLimit.rate(100),
      new ProviderLimit(ProviderLimit.Kind.CALLS, 5, Duration.ofMinutes(1),
          ProviderLimit.Window.SLIDING, Duration.ZERO),
      new ProviderLimit(ProviderLimit.Kind.COST, 12, Duration.ofMinutes(1),
          ProviderLimit.Window.SLIDING, Duration.ZERO),
      ProviderLimit.concurrency(4)));
  /**
   * The same provider with windows of an hour: kept as sub-window counters
   * ({@link WindowLedger#isCoarse}), which must decide every step of the table alike.
   */
  static final ProviderLimits COARSE_LIMITS = new ProviderLimits(List.of(
      ProviderLimit.rate(100),
      new ProviderLimit(ProviderLimit.Kind.CALLS, 5, Duration.ofHours(1),
          ProviderLimit.Window.SLIDING, Duration.ZERO),
      new ProviderLimit(ProviderLimit.Kind.COST, 12, Duration.ofHours(1),
          ProviderLimit.Window.SLIDING, Duration.ZERO),
      ProviderLimit.concurrency(4)));

  enum Kind { CLAIM, SETTLE, RELEASE, WIPE }

  /**
   * @param wanted        claims: slots asked for
   * @param cost          claims: the cost each slot reserves; settles: the cost actually sent
   * @param ofStep        settles and releases: the claim step (index) whose slot 0 it concerns
   * @param expectGranted claims: slots granted
   * @param expectAtMillis claims that grant: the first slot, relative to now; claims that grant
   *                       nothing: the least time from the claim's now to the slot it would
   *                       have had; -1: not checked
   */
  record Step(String why, Kind kind, int wanted, long cost, int ofStep, int expectGranted,
              long expectAtMillis) {}

  private static Step claim(String why, int wanted, long cost, int granted, long atMillis) {
    return new Step(why, Kind.CLAIM, wanted, cost, -1, granted, atMillis);
  }

  static final List<Step> STEPS = List.of(
      claim("three slots reserving 4 each: 12 units, the whole cost window", 3, 4, 3, 0),
      claim("nothing more fits the cost window, even at cost 1", 1, 1, 0, -1),
      new Step("slot 0 of the first claim carried an event of cost 1: 3 units come back",
          Kind.SETTLE, 0, 1, 0, 0, -1),
      claim("the 3 units given back fit three slots of 1, but concurrency 4 holds 3: one", 3, 1, 1, 30),
      new Step("the first claim's slot 0 ends its call: its lease comes back", Kind.RELEASE,
          0, 0, 0, 0, -1),
      claim("two more units and a lease: one slot of 1 (the 5-call window now holds 5)", 2, 1, 1, 40),
      new Step("another lease comes back", Kind.RELEASE, 0, 0, 3, 0, -1),
      claim("the calls window is full: nothing, whatever the cost and leases", 1, 1, 0, -1),
      new Step("Redis loses the provider's keys and its slot's marker (FLUSHALL, a restart "
          + "without persistence)", Kind.WIPE, 0, 0, 0, 0, -1),
      claim("after the loss every window holds its amount at the latest a lost slot can have "
          + "been (now + lookahead): nothing until a minute after that", 1, 1, 0, 60_000),
      claim("still nothing: the windows are not refilled by asking again", 3, 1, 0, 60_000));

  /** What the table runs against: the math on a fake clock, the local leak, or the script. */
  interface Subject {
    SlotClaim claim(LimitedClaim request) throws Exception;

    /** Gives back {@code reserved - actual} of the slot in every cost limit. */
    void settle(long slotMicros, long reserved, long actual) throws Exception;

    void release(String leaseId) throws Exception;

    /**
     * Loses every key of the provider and the marker of its slot; for the local leak, the
     * stretch in which it stands in for Redis begins ({@link LocalLeakyBucket#standingInForRedis}).
     */
    void wipe() throws Exception;
  }

  /** Checks a granting claim's first slot against {@code expectAtMillis}. */
  interface SlotCheck {
    void check(Step step, SlotClaim answer, long tableFirstSlotMicros);
  }

  /** The table on one subject: the claims it sent and the answers, for the settles and releases after them. */
  static final class SubjectRun implements io.sluice.testkit.SpecTable.Run<Step> {
    private final Subject subject;
    private final SlotCheck slots;
    private final List<LimitedClaim> sent = new ArrayList<>();
    private final List<SlotClaim> answers = new ArrayList<>();

    SubjectRun(Subject subject, SlotCheck slots) {
      this.subject = subject;
      this.slots = slots;
    }

    @Override
    public void step(int index, Step step) throws Exception {
      LimitedClaim request = new LimitedClaim(Math.max(1, step.wanted()), LOOKAHEAD_MICROS,
          Math.max(1, step.cost()), "s" + sent.size(), LEASE_MICROS);
      SlotClaim answer = null;
      switch (step.kind()) {
        case CLAIM -> {
          answer = subject.claim(request);
          assertEquals(step.expectGranted(), answer.granted(), "granted");
          if (step.expectGranted() == 0 && step.expectAtMillis() >= 0) {
            assertTrue(answer.firstSlotMicros() - answer.nowMicros()
                >= step.expectAtMillis() * 1000, "no slot before: " + answer);
          } else if (step.expectAtMillis() >= 0) {
            slots.check(step, answer, answers.isEmpty() ? answer.firstSlotMicros()
                : answers.get(0).firstSlotMicros());
          }
        }
        case SETTLE -> subject.settle(answers.get(step.ofStep()).slotMicros(0),
            sent.get(step.ofStep()).slotCost(), step.cost());
        case RELEASE -> subject.release(sent.get(step.ofStep()).leaseId(0));
        case WIPE -> subject.wipe();
        default -> throw new IllegalStateException();
      }
      sent.add(request);
      answers.add(answer);
    }
  }

  /** Settles a slot in every cost limit of the table's provider, in a mirror ledger. */
  static void settle(WindowLedger ledger, ProviderLimits limits, long slotMicros, long reserved,
      long actual) {
    for (ProviderLimit l : limits.beyondRate()) {
      if (l.kind() == ProviderLimit.Kind.COST) {
        ledger.settle(l, slotMicros, reserved, actual);
      }
    }
  }
}
