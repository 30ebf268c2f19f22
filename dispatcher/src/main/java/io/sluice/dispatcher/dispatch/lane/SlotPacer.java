package io.sluice.dispatcher.dispatch.lane;

/**
 * When one lane's leak slots start their calls on the local clock, and which slots it must drop.
 * Pure: every instant is passed in ({@code System.nanoTime} in production). Not thread-safe: the
 * lane calls it under its monitor.
 *
 * <h2>From the leak's clock to ours: never early, late by the least one-way delay</h2>
 *
 * A claim's answer says what the leak's clock read when it decided ({@code leakNow}); the answer
 * arrives some return delay later. {@code received - leakNow} is therefore the clock offset plus
 * that claim's return delay: mapping a slot with it fires late by the whole delay, and a claim
 * whose answer took 30 ms (a busy core, a GC) fired every one of its slots 30 ms late, squeezing
 * them against the next instance's slots that fired on time. The pacer keeps the least
 * {@code received - leakNow} of the last {@value #SAMPLES} claims instead: still never early (each
 * sample is at least the true offset), late only by the shortest return delay seen, and the same
 * for every slot whatever its own claim's delay. (Clock drift between two hosts is ~1e-5: over the
 * seconds the samples span, microseconds.) How late it can still be is bounded by the shortest
 * round trip among the samples (each sample exceeds the true offset by less than its own round
 * trip), and that bound counts as lateness: right after start, when the only claim answered was
 * a cold client's 100 ms round trip, its slot could be 100 ms late on the shared schedule, so it
 * is dropped rather than sent into the next instance's slot.
 *
 * <h2>Spacing measured where the call leaves: the hand-off to the HTTP client</h2>
 *
 * A provider judges arrivals, and the last instant this process controls is when it hands a call
 * to the HTTP client. So the spacing rule is applied there: a call is never handed over less than
 * one interval (less {@code slack}) after this lane's previous hand-off. A slot whose predecessor
 * was handed over late (a stalled timer) waits until one interval after that hand-off instead of
 * following it closely: the lateness is carried forward, not made up. A hand-off counts from
 * when the client returned if that took longer than {@code slack} (a cold client loading and
 * connecting on the calling thread sends its request as it returns).
 *
 * <p>Why a slack: a slot that waits for its spacing is woken by the timer, which is itself late,
 * and without a slack that lateness would add up over consecutive slots of one lane until one is
 * dropped (a lost slot every few dozen at one instance). Carried lateness shrinks by {@code slack}
 * per slot, so the slack must exceed the timer's usual delay: the lane uses a quarter of an
 * interval ({@link LaneSchedule#slackNanos}, where the measurements are). It never lets calls
 * crowd the schedule, since every call still starts at or after its own slot.
 *
 * <h2>No more in any second than the leak's slots hold</h2>
 *
 * The slack is given per pair of hand-offs, so after a late one (a stall of the process, a full
 * GC) the next ones make its lateness up a slack at a time, and the provider sees them closer
 * together than the slots: at 1.92/s (slots 521 ms apart) a call sent 250 ms late, the next
 * waiting only 391 ms after it, and the one after on time land three within 792 ms, and an
 * endpoint allowing 2 in any second answers 429 (seen from outside: a cold start of a thousand
 * lanes, a full GC). So a hand-off also waits until one second after the {@code n}th hand-off
 * before it (10 ms more where the slots leave it, for the time a call takes to leave the process
 * after its hand-off), {@code n} being the most slots of the claim's interval any second can hold
 * ({@code ceil(1 s / interval)}): however late the calls before it were, the calls handed over
 * in any second are never more than the leak's slots in a second. Lateness is made up only within
 * what the rate leaves free in a second (42 ms at 1.92/s, none at a whole rate), so after a stall
 * a lane runs behind its slots, and drops one (below) rather than crowd a second. For rates above
 * {@value #WINDOW_CALLS}/s the rule looks back {@value #WINDOW_CALLS} hand-offs, over as many
 * intervals; below 1/s, one hand-off, over one interval (one call in any interval).
 *
 * <h2>Anchored on the answers: what happens after the hand-off</h2>
 *
 * The hand-off is the last instant this process controls, not when the provider sees the call:
 * the HTTP client's threads, the network and the provider's own process can hold a call handed
 * over on time, and a call that reaches the provider 60 ms late followed by two on time lands
 * three within a second at 1.92/s (the slots leave 42 ms). Seen from outside at 1,000 endpoints
 * on 2 cores: 2 to 12 429s a second, every one a call held more than 40 ms after its slot. What
 * this process does know is when the answer came back: the provider handled the call between its
 * hand-off and its answer. So once answered, a call counts in the one-second rule as handed over
 * as late as its answer was slower than the lane's fastest recent answer ({@link #answeredAt}):
 * {@code hand-off + min(cap, latency - fastest)}, where the fastest drops to a faster answer at
 * once and forgets it slowly (a 256th of the difference per slower answer): the floor a provider's
 * answers do not go below, not the luckiest of a few. A lane's first {@value #TRUSTED_AFTER}
 * answers count whole: a new lane's first call opens a connection, and a fresh JVM answers every
 * call slowly at first, its fastest too. A provider that is always slow is slow for
 * every call (its fastest is slow), and only the part of a call's delay that others did not have
 * counts; the provider saw that call at most that much later than it saw the others. The cap is
 * twice the tolerance (about an interval): the slot {@code n} after such a call would be dropped
 * (used more than the tolerance late), and the one after it counts from that call too, so the cap
 * is how late a call may land and still be covered (a cap of the tolerance alone left a call
 * held 270 ms after its hand-off uncovered: from outside, two 429s, one stall, two endpoints in the
 * same millisecond). The cost is
 * paid only by calls whose answers came late, by the call {@code n} slots after each, and only
 * beyond what the slots leave free in a second. Only where the rule looks back over a whole
 * second (rates up to {@value #WINDOW_CALLS}/s): above, it looks back over fewer intervals than a
 * second holds, and an answer a few intervals slow would drop slot after slot. A call still in
 * flight counts from its hand-off, as before: its answer, when it comes, moves it.
 *
 * <h2>How late a slot may still be used</h2>
 *
 * A slot handed over more than {@code tolerance} after its due time is dropped (its event waits
 * for the next slot). Slots of other instances are not shifted by this one's lateness, so a late
 * slot shortens the gap to the next instance's slot by up to {@code tolerance}: the calls handed
 * over in any window T stay within {@code rate * (T + tolerance) + 1}. A dropped slot costs
 * throughput only while the process stalls.
 */
final class SlotPacer {
  /** Claims whose offsets are remembered. */
  static final int SAMPLES = 16;
  /** The most hand-offs the one-second rule looks back over (the memory it keeps per lane). */
  static final int WINDOW_CALLS = 256;
  private static final long SECOND_NANOS = 1_000_000_000L;
  /**
   * How much more than a second the one-second rule keeps between a hand-off and the nth before
   * it, where the slots leave that much: calls handed over a second apart reached an endpoint
   * 999 ms apart (the earlier one left the JVM later after its hand-off), a 429 at 2 in any
   * second; at 1.92/s the slots leave 42 ms.
   */
  static final long SEND_JITTER_NANOS = 10_000_000L;
  /**
   * How slowly the lane's fastest answer forgets a fast one: each slower answer raises it by this
   * part of the difference (a fast answer lowers it at once).
   */
  static final int FASTEST_RISE = 256;
  /**
   * How many answers a lane must have seen before its fastest is trusted: until then each call
   * counts as landing as late as its answer came (16 s at 2/s; at 100 ms a round trip, 90% of a
   * 1.92/s rate for those seconds).
   */
  static final int TRUSTED_AFTER = 32;

  /** What to do with a slot that is due. */
  sealed interface Decision {
    /** Hand the call over now. */
    record Fire() implements Decision {}

    /** Too close after the previous hand-off: look again at {@code atNanos}. */
    record WaitUntil(long atNanos) implements Decision {}

    /** Too late to use without crowding the next slot: spend it unused. */
    record Drop(long lateNanos) implements Decision {}
  }

  private long toleranceNanos;
  private long slackNanos;
  private final long[] offsets = new long[SAMPLES];
  private final long[] roundTrips = new long[SAMPLES];
  private int samples;
  private int nextSample;
  private long offsetNanos;
  /** The most {@link #offsetNanos} can exceed the true offset by: the shortest round trip. */
  private long offsetErrorNanos;
  private boolean handedAny;
  private long lastHandedNanos;
  /** The last hand-offs, a ring of {@code handedCount}, for the one-second rule. */
  private long[] handed = new long[2];
  /**
   * The same calls, each moved as late as its answer allows ({@link #answeredAt}): the latest
   * instant it can have reached the provider, as far as known. Never before its hand-off.
   */
  private long[] reached = new long[2];
  /**
   * The ticket the next hand-off gets ({@link #handed}'s answer): hand-offs are numbered in the
   * order the ring holds them, so a ticket's place in the ring follows from how far back it is.
   */
  private long nextTicket;
  /** The lane's fastest recent answer ({@link #FASTEST_RISE}); meaningless before the first. */
  private long fastestNanos;
  /** Answers seen, up to {@link #TRUSTED_AFTER}. */
  private int answers;
  private int handedCount;
  private int handedNext;
  /** How many hand-offs the last decision looked back over: the ring grows to it. */
  private int lookBack = 1;

  /**
   * @param toleranceNanos how late a slot may still be used
   * @param slackNanos     how much closer than one interval a hand-off may follow the previous one
   */
  SlotPacer(long toleranceNanos, long slackNanos) {
    if (toleranceNanos < 0 || slackNanos < 0) {
      throw new IllegalArgumentException("tolerance " + toleranceNanos + " and slack " + slackNanos
          + " must not be negative");
    }
    this.toleranceNanos = toleranceNanos;
    this.slackNanos = slackNanos;
  }

  /**
   * New tolerance and slack (the provider's rate was reloaded); the clock offset learned so far
   * stays, since it does not depend on the rate.
   */
  void retune(long toleranceNanos, long slackNanos) {
    if (toleranceNanos < 0 || slackNanos < 0) {
      throw new IllegalArgumentException("tolerance " + toleranceNanos + " and slack " + slackNanos
          + " must not be negative");
    }
    this.toleranceNanos = toleranceNanos;
    this.slackNanos = slackNanos;
  }

  /**
   * A claim sent at {@code sentNanos} was answered at {@code receivedNanos}; the leak decided at
   * {@code leakNowMicros}.
   */
  void answered(long sentNanos, long receivedNanos, long leakNowMicros) {
    long offset = receivedNanos - leakNowMicros * 1000;
    long roundTrip = Math.max(0, receivedNanos - sentNanos);
    // This answer proves the true offset is at least offset - roundTrip. A remembered sample below
    // that was taken on another clock (the in-process leak's wall clock before Redis answered
    // again, a Redis failover to a node whose clock differs) or before the clock stepped: keeping
    // it as the least would map every slot early by the difference. Forget them all.
    for (int i = 0; i < samples; i++) {
      if (offsets[i] < offset - roundTrip) {
        samples = 0;
        nextSample = 0;
        break;
      }
    }
    offsets[nextSample] = offset;
    roundTrips[nextSample] = roundTrip;
    nextSample = (nextSample + 1) % SAMPLES;
    samples = Math.min(SAMPLES, samples + 1);
    long least = Long.MAX_VALUE;
    long shortest = Long.MAX_VALUE;
    for (int i = 0; i < samples; i++) {
      least = Math.min(least, offsets[i]);
      shortest = Math.min(shortest, roundTrips[i]);
    }
    offsetNanos = least;
    offsetErrorNanos = shortest;
  }

  /** The local instant of a slot on the leak's clock; call after at least one {@link #answered}. */
  long dueNanos(long slotMicros) {
    if (samples == 0) {
      throw new IllegalStateException("no claim answered yet");
    }
    return slotMicros * 1000 + offsetNanos;
  }

  /**
   * A slot due at {@code dueNanos}, of a claim whose slots are {@code intervalNanos} apart, comes
   * up at {@code nowNanos}.
   */
  Decision decide(long nowNanos, long dueNanos, long intervalNanos) {
    long at = dueNanos - nowNanos > 0 ? dueNanos : nowNanos;
    long spaced = lastHandedNanos + intervalNanos - slackNanos;
    if (handedAny && spaced - at > 0) {
      at = spaced;
    }
    int n = callsPerSecond(intervalNanos);
    lookBack = n;
    if (handedCount >= n) {
      int nthAt = Math.floorMod(handedNext - n, handed.length);
      long nth = (long) n * intervalNanos >= SECOND_NANOS ? reached[nthAt] : handed[nthAt];
      // A second and SEND_JITTER, as far as the n intervals the rule looks back over allow (so
      // slots on time never wait); one interval when it is longer (below 1/s: one call in any
      // interval).
      long window = intervalNanos >= SECOND_NANOS ? intervalNanos
          : Math.min(n * intervalNanos, SECOND_NANOS + SEND_JITTER_NANOS);
      if (nth + window - at > 0) {
        at = nth + window;
      }
    }
    long late = at - dueNanos + offsetErrorNanos;
    if (late > toleranceNanos) {
      return new Decision.Drop(late);
    }
    return at == nowNanos ? new Decision.Fire() : new Decision.WaitUntil(at);
  }

  /**
   * A call was handed to the provider's client at {@code invokedNanos}, which returned at
   * {@code returnedNanos}. Returns the call's ticket, for {@link #answeredAt}.
   */
  long handed(long invokedNanos, long returnedNanos) {
    long at = handedAt(invokedNanos, returnedNanos);
    if (!handedAny || at - lastHandedNanos > 0) {
      lastHandedNanos = at;
    }
    remember(at);
    handedAny = true;
    return nextTicket - 1;
  }

  /**
   * The call of {@code ticket} came back (answered, timed out or failed) at {@code answeredNanos}:
   * it counts in the one-second rule as handed over as late as its answer was slower than the
   * lane's fastest recent answer, at most twice the tolerance later (see the class
   * comment). A call the rule no longer looks back to is forgotten: it matters to no decision.
   */
  void answeredAt(long ticket, long answeredNanos) {
    long back = nextTicket - ticket;
    if (back < 1 || back > handedCount) {
      return;
    }
    int i = Math.floorMod(handedNext - (int) back, handed.length);
    long handedAt = handed[i];
    long latency = Math.max(0, answeredNanos - handedAt);
    // Against the fastest before this answer, and only once the lane has seen enough answers to
    // know it: until then every answer counts whole. A cold lane's first call opens a connection
    // and lands late (seen from outside: the third calls of two new lanes, in one millisecond,
    // answered 429); in a fresh JVM every answer of the first seconds is slow (the JIT), its
    // fastest too, and the part of a delay that comes before the call lands varies the most
    // (seen from outside: 24 429s 4-10 s into a cold start, none once warm).
    long fastest = answers < TRUSTED_AFTER ? 0 : Math.min(fastestNanos, latency);
    long moved = handedAt + Math.min(2 * toleranceNanos, latency - fastest);
    fastestNanos = answers == 0 || latency < fastestNanos ? latency
        : fastestNanos + (latency - fastestNanos) / FASTEST_RISE;
    answers = Math.min(TRUSTED_AFTER, answers + 1);
    if (moved - reached[i] > 0) {
      reached[i] = moved;
    }
  }

  /**
   * The client of the last call handed over (at {@code invokedNanos}, as {@link #handed} was
   * told) returned at {@code returnedNanos}: that hand-off counts from then if the client took
   * longer than the slack. The same call, not another hand-off.
   */
  void returned(long invokedNanos, long returnedNanos) {
    if (!handedAny) {
      return;
    }
    long at = handedAt(invokedNanos, returnedNanos);
    if (at - lastHandedNanos > 0) {
      lastHandedNanos = at;
    }
    int last = Math.floorMod(handedNext - 1, handed.length);
    if (at - handed[last] > 0) {
      handed[last] = at;
    }
    if (at - reached[last] > 0) {
      reached[last] = at;
    }
  }

  private long handedAt(long invokedNanos, long returnedNanos) {
    return returnedNanos - slackNanos - invokedNanos > 0 ? returnedNanos - slackNanos : invokedNanos;
  }

  /**
   * How many hand-offs the one-second rule looks back over at slots {@code intervalNanos} apart:
   * the most slots any second holds ({@code ceil(1 s / interval)}), at most {@value #WINDOW_CALLS}.
   */
  static int callsPerSecond(long intervalNanos) {
    if (intervalNanos <= 0) {
      return WINDOW_CALLS;
    }
    return (int) Math.min(WINDOW_CALLS, (SECOND_NANOS + intervalNanos - 1) / intervalNanos);
  }

  private void remember(long at) {
    if (handedCount == handed.length && handed.length < lookBack) {
      // Grow, oldest first: a lane keeps as many as its rate needs, two at 2/s.
      int size = Math.min(WINDOW_CALLS, Math.max(lookBack, handed.length * 2));
      handed = grown(handed, size);
      reached = grown(reached, size);
      handedNext = handedCount;
    }
    handed[handedNext] = at;
    reached[handedNext] = at;
    nextTicket++;
    handedNext = (handedNext + 1) % handed.length;
    handedCount = Math.min(handed.length, handedCount + 1);
  }

  /** The ring {@code ring} (full, oldest at {@code handedNext}) laid out oldest first in {@code size}. */
  private long[] grown(long[] ring, int size) {
    long[] grown = new long[size];
    for (int i = 0; i < handedCount; i++) {
      grown[i] = ring[Math.floorMod(handedNext + i, ring.length)];
    }
    return grown;
  }
}
