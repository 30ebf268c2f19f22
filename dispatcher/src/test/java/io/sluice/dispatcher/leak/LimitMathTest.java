package io.sluice.dispatcher.leak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.config.ProviderLimit;
import io.sluice.config.ProviderLimit.Window;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Every limit of a provider on one claim, on a fake clock (microseconds). */
class LimitMathTest {
  private static final long S = 1_000_000;
  private static final long MS = 1_000;
  private static final LeakConfig CONFIG = new LeakConfig(0.25, 100 * S);

  private final LimitMath math = new LimitMath(new LeakMath(CONFIG));
  private final WindowLedger ledger = new WindowLedger();
  private LeakState state = LeakState.EMPTY;
  private int claims;

  private static ProviderLimit sliding(ProviderLimit.Kind kind, long amount, Duration per) {
    return new ProviderLimit(kind, amount, per, Window.SLIDING, Duration.ZERO);
  }

  private static ProviderLimit fixed(ProviderLimit.Kind kind, long amount, Duration per,
      Duration margin) {
    return new ProviderLimit(kind, amount, per, Window.FIXED, margin);
  }

  private SlotClaim claim(long now, ProviderLimits limits, int wanted, long lookahead, long cost) {
    LeakMath.ClaimStep step = math.claim(state, ledger, now, limits,
        new LimitedClaim(wanted, lookahead, cost, "c" + claims++, 5 * S));
    state = step.next();
    return step.claim();
  }

  @Test
  @DisplayName("a long sliding window (sub-window counters) holds every window of its span, and loses at most a sub-window's share to the counting")
  void shouldHoldALongSlidingWindowWithSubWindows() {
    ProviderLimit window = new ProviderLimit(ProviderLimit.Kind.CALLS, 120, Duration.ofMinutes(2),
        Window.SLIDING, Duration.ofMillis(20));
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(10), window));
    java.util.List<long[]> slots = new java.util.ArrayList<>();
    for (long now = 0; now < 600 * S; now += 50 * MS) {
      SlotClaim c = claim(now, limits, 3, 100 * MS, 1);
      for (int i = 0; i < c.granted(); i++) {
        slots.add(new long[] {c.slotMicros(i), 1});
      }
    }
    LimitBounds.assertEveryLimitHeld(slots, limits);
    // Ten minutes are five windows of 120: the log would grant 600; a sub-window (2 s, up to 20
    // calls at 10/s) may be held back per window.
    assertTrue(slots.size() >= 600 - 5 * 20, slots.size() + " granted");
  }

  @Test
  @DisplayName("a sliding window of 5 calls a second moves the 6th slot to one second after the 1st")
  void shouldHoldASlidingWindowExactly() {
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(10),
        sliding(ProviderLimit.Kind.CALLS, 5, Duration.ofSeconds(1))));
    SlotClaim c = claim(0, limits, 10, 2 * S, 1);
    assertEquals(5, c.granted(), "the window, not the lookahead, stops the claim");
    assertEquals(0, c.firstSlotMicros());
    assertEquals(400 * MS, c.slotMicros(4));
    SlotClaim next = claim(10 * MS, limits, 10, 200 * MS, 1);
    assertEquals(0, next.granted());
    assertEquals(1000 * MS, next.firstSlotMicros(), "when the slot at 0 leaves the window");
    assertEquals(800 * MS, next.retryAtMicros(), "a lookahead before that");
    SlotClaim later = claim(800 * MS, limits, 10, 200 * MS, 1);
    assertEquals(1, later.granted(), "1000 ms fits; 1100 ms would hold 100 ms..1100 ms: six");
    assertEquals(1000 * MS, later.firstSlotMicros());
  }

  @Test
  @DisplayName("after a loss found at 7.5 s a fixed window of the second is full until 8 s; "
      + "leases lost hold concurrency until they would have expired")
  void shouldHoldFixedWindowsAndLeasesLostWithRedis() {
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(10),
        fixed(ProviderLimit.Kind.CALLS, 3, Duration.ofSeconds(1), Duration.ZERO),
        ProviderLimit.concurrency(2)));
    long lost = 7 * S + 500 * MS;
    LeakMath.ClaimStep step = math.claim(state, ledger, lost, lost, limits,
        new LimitedClaim(3, 200 * MS, 1, "a", 5 * S));
    assertEquals(0, step.claim().granted());
    step = math.claim(step.next(), ledger, 12 * S, lost, limits,
        new LimitedClaim(3, 200 * MS, 1, "b", 5 * S));
    assertEquals(0, step.claim().granted(), "the lost leases are held until 7.7 s + 5 s");
    WindowLedger fresh = new WindowLedger();
    ProviderLimits windowOnly = new ProviderLimits(limits.all().subList(0, 2));
    step = math.claim(LeakState.EMPTY, fresh, lost, lost, windowOnly,
        new LimitedClaim(3, 200 * MS, 1, "c", 5 * S));
    assertEquals(0, step.claim().granted());
    assertEquals(8 * S, step.claim().firstSlotMicros(),
        "the window of 7 s may hold the lost calls (up to 7.7 s): the next one starts on the second");
    step = math.claim(step.next(), fresh, 7 * S + 900 * MS, lost, windowOnly,
        new LimitedClaim(3, 200 * MS, 1, "d", 5 * S));
    assertEquals(8 * S, step.claim().firstSlotMicros());
    assertEquals(2, step.claim().granted(), "the window of 8 s is whole (8.0 and 8.1 s)");
  }

  @Test
  @DisplayName("after Redis lost its data a configured day window is held full, one known only from the provider's answers is not")
  void shouldHoldOnlyConfiguredWindowsAfterALoss() {
    ProviderLimit day = new ProviderLimit(ProviderLimit.Kind.CALLS, 50_000, Duration.ofDays(1),
        ProviderLimit.Window.SLIDING, Duration.ofMillis(20));
    List<ProviderLimit> all = List.of(ProviderLimit.rate(10), day);
    long lost = 7 * S;
    LeakMath.ClaimStep configured = math.claim(LeakState.EMPTY, new WindowLedger(), lost, lost,
        new ProviderLimits(all), new LimitedClaim(3, 200 * MS, 1, "a", 5 * S));
    assertEquals(0, configured.claim().granted(), "a configured day window may hold the lost calls");
    LeakMath.ClaimStep learned = math.claim(LeakState.EMPTY, new WindowLedger(), lost, lost,
        new ProviderLimits(all, java.util.Set.of(day.id())),
        new LimitedClaim(3, 200 * MS, 1, "b", 5 * S));
    assertEquals(3, learned.claim().granted(),
        "a learned day window (a hostile answer's, say) does not stop the provider for a day");
  }

  @Test
  @DisplayName("a fixed window is aligned to the epoch: full until the next whole second")
  void shouldAlignAFixedWindowToTheClock() {
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(10),
        fixed(ProviderLimit.Kind.CALLS, 3, Duration.ofSeconds(1), Duration.ZERO)));
    SlotClaim c = claim(7 * S + 500 * MS, limits, 10, 2 * S, 1);
    assertEquals(3, c.granted());
    SlotClaim next = claim(7 * S + 900 * MS, limits, 10, 2 * S, 1);
    assertEquals(8 * S, next.firstSlotMicros(), "the next window starts on the second");
    assertEquals(3, next.granted());
  }

  @Test
  @DisplayName("a fixed window's margin charges a slot just before its end to the next one too")
  void shouldChargeASlotNearTheEndOfAFixedWindowToBoth() {
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(100),
        fixed(ProviderLimit.Kind.CALLS, 1, Duration.ofSeconds(1), Duration.ofMillis(20))));
    SlotClaim c = claim(990 * MS, limits, 1, 0, 1);
    assertEquals(1, c.granted(), "990 ms: window 0 and (arriving by 1010 ms) window 1");
    SlotClaim next = claim(1000 * MS, limits, 1, 1500 * MS, 1);
    assertEquals(2 * S, next.firstSlotMicros(), "window 1 already holds the call of 990 ms");
  }

  @Test
  @DisplayName("a cost window weighs each slot by the cost it reserves")
  void shouldWeighSlotsByCost() {
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(10),
        sliding(ProviderLimit.Kind.COST, 10, Duration.ofSeconds(1))));
    SlotClaim c = claim(0, limits, 5, 2 * S, 4);
    assertEquals(2, c.granted(), "4 + 4 fit in 10, a third 4 does not");
    SlotClaim cheap = claim(0, limits, 5, 250 * MS, 2);
    assertEquals(1, cheap.granted(), "2 more fit");
    assertEquals(200 * MS, cheap.firstSlotMicros());
  }

  @Test
  @DisplayName("a slot whose event cost less than it reserved gives the difference back")
  void shouldGiveBackUnusedCost() {
    ProviderLimit sliding = sliding(ProviderLimit.Kind.COST, 10, Duration.ofSeconds(1));
    ProviderLimit fixed = fixed(ProviderLimit.Kind.COST, 10, Duration.ofSeconds(1), Duration.ZERO);
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(10), sliding, fixed));
    SlotClaim c = claim(0, limits, 5, 2 * S, 5);
    assertEquals(2, c.granted(), "two dearest-cost reservations fill the window");
    ledger.settle(sliding, c.slotMicros(0), 5, 1);
    ledger.settle(fixed, c.slotMicros(0), 5, 1);
    assertEquals(6, ledger.held(sliding, 100 * MS), "1 sent + 5 still reserved");
    SlotClaim more = claim(100 * MS, limits, 5, 2 * S, 4);
    assertEquals(1, more.granted(), "the 4 given back fit one more slot of 4");
  }

  @Test
  @DisplayName("a refused claim consumes nothing in any limit")
  void shouldConsumeNothingWhenAnyLimitRefuses() {
    ProviderLimit calls = sliding(ProviderLimit.Kind.CALLS, 100, Duration.ofSeconds(1));
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(10), calls,
        sliding(ProviderLimit.Kind.COST, 5, Duration.ofSeconds(1)),
        ProviderLimit.concurrency(10)));
    assertEquals(1, claim(0, limits, 1, S, 3).granted());
    SlotClaim refused = claim(100 * MS, limits, 1, 500 * MS, 3);
    assertEquals(0, refused.granted(), "3 + 3 > 5");
    assertEquals(1, ledger.held(calls, 900 * MS), "the calls window holds only the granted slot");
    assertEquals(1, ledger.liveLeases(), "no lease for the refused slot");
    assertEquals(state.lastSlotMicros(), 0, "the leak did not move either");
  }

  @Test
  @DisplayName("concurrency: leases across claims, given back on release or when they expire")
  void shouldLeaseConcurrency() {
    ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(100),
        ProviderLimit.concurrency(2)));
    assertEquals(2, claim(0, limits, 5, S, 1).granted());
    SlotClaim full = claim(100 * MS, limits, 1, S, 1);
    assertEquals(0, full.granted());
    assertTrue(full.retryAtMicros() <= 100 * MS + LimitMath.CONCURRENCY_RETRY_MICROS);
    ledger.release("c0:0");
    assertEquals(1, claim(100 * MS, limits, 5, S, 1).granted(), "the released lease is free");
    assertEquals(0, claim(200 * MS, limits, 5, S, 1).granted());
    // c0:1 (slot 10 ms) and c2:0 (slot 100 ms) expire 5 s after their slots: a dead instance's.
    assertEquals(2, claim(5100 * MS, limits, 5, S, 1).granted());
  }

  @Test
  @DisplayName("exact in every window: random claims never put more than a limit's amount in any")
  void shouldHoldEveryLimitInEveryWindowUnderRandomClaims() {
    Random random = new Random(12);
    for (int run = 0; run < 40; run++) {
      LimitMath runMath = new LimitMath(new LeakMath(CONFIG,
          run % 2 == 0 ? LeakMath.Memory.KEPT : LeakMath.Memory.LOSABLE));
      WindowLedger runLedger = new WindowLedger();
      double rate = 5 + random.nextInt(50);
      ProviderLimit calls = new ProviderLimit(ProviderLimit.Kind.CALLS, 1 + random.nextInt(20),
          Duration.ofMillis(200 + random.nextInt(3000)),
          random.nextBoolean() ? Window.SLIDING : Window.FIXED, Duration.ofMillis(random.nextInt(30)));
      ProviderLimit cost = new ProviderLimit(ProviderLimit.Kind.COST, 10 + random.nextInt(50),
          Duration.ofMillis(500 + random.nextInt(5000)),
          random.nextBoolean() ? Window.SLIDING : Window.FIXED, Duration.ofMillis(random.nextInt(30)));
      int concurrency = 1 + random.nextInt(6);
      ProviderLimits limits = new ProviderLimits(List.of(ProviderLimit.rate(rate), calls, cost,
          ProviderLimit.concurrency(concurrency)));
      LeakState s = LeakState.EMPTY;
      List<long[]> slots = new ArrayList<>();
      long now = 1_700_000_000L * S + random.nextInt(1_000_000);
      List<String> held = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        now += random.nextInt(150_000);
        long slotCost = 1 + random.nextInt(8);
        LimitedClaim request = new LimitedClaim(1 + random.nextInt(6), random.nextInt(300_000),
            slotCost, "r" + i, 2 * S);
        LeakMath.ClaimStep step = runMath.claim(s, runLedger, now, limits, request);
        s = step.next();
        for (int g = 0; g < step.claim().granted(); g++) {
          slots.add(new long[] {step.claim().slotMicros(g), slotCost});
          held.add(request.leaseId(g));
        }
        while (!held.isEmpty() && random.nextInt(3) == 0) {
          runLedger.release(held.remove(random.nextInt(held.size())));
        }
        assertTrue(runLedger.liveLeases() <= concurrency, "run " + run + ": leases");
      }
      assertTrue(slots.size() > 10, "run " + run + " granted " + slots.size());
      LimitBounds.assertEveryLimitHeld(slots, limits);
    }
  }
}
