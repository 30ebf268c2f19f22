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
 * <h2>How late a slot may still be used</h2>
 *
 * A slot handed over more than {@code tolerance} after its due time is dropped (its event waits
 * for the next slot). Slots of other instances are not shifted by this one's lateness, so a late
 * slot shortens the gap to the next instance's slot by up to {@code tolerance}: the calls handed
 * over in any window T stay within {@code rate * (T + tolerance) + 1}. A dropped slot costs
 * throughput only while the process stalls.
 */
public final class SlotPacer {
  /** Claims whose offsets are remembered. */
  static final int SAMPLES = 16;

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
    long late = at - dueNanos + offsetErrorNanos;
    if (late > toleranceNanos) {
      return new Decision.Drop(late);
    }
    return at == nowNanos ? new Decision.Fire() : new Decision.WaitUntil(at);
  }

  /**
   * A call was handed to the provider's client at {@code invokedNanos}, which returned at
   * {@code returnedNanos}.
   */
  void handed(long invokedNanos, long returnedNanos) {
    long handed = returnedNanos - slackNanos - invokedNanos > 0 ? returnedNanos - slackNanos : invokedNanos;
    if (!handedAny || handed - lastHandedNanos > 0) {
      lastHandedNanos = handed;
    }
    handedAny = true;
  }
}
