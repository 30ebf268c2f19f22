package io.sluice.dispatcher.dispatch.lane;

/**
 * How many leak slots one lane may claim, when the lanes of several instances share a provider:
 * its {@link io.sluice.dispatcher.fair.GlobalShare} of the leak's rate, as a token bucket.
 *
 * <h2>Why a cap, and why it never idles the leak</h2>
 * The leak hands slots to whoever claims first. Two backlogged instances each claim as fast as the
 * lookahead lets them, so they split the leak about evenly whatever they hold. To split it by
 * their shares, each instance claims no more than its share of the rate, plus {@value #SLACK}
 * of it:
 * <pre>
 *   allowance refills at  share * rate * (1 + SLACK)  slots per second,
 *   holds at most         that rate * lookahead + 1   slots (one claim's worth)
 * </pre>
 * The caps of all instances add up to {@code (1 + SLACK) * rate}, more than the leak gives, so
 * when every instance is backlogged the leak stays busy and each gets between
 * {@code share - SLACK * (1 - share)} and {@code share * (1 + SLACK)} of it. The slack is what
 * keeps the sum above the rate when shares are a little stale or the counts jitter.
 *
 * <p>A cap must not hold back an instance when the others do not use their part (their tenants
 * drained since they last published, or they stopped). The leak says so itself: a claim whose
 * first slot is within one interval of the leak's now found the schedule with nobody holding the
 * next slot, so slots are going unused. Then the allowance fills up at once
 * ({@link #leakIdle}): unused capacity is never kept from the instance that has work for it.
 *
 * <p>The cap only ever makes an instance claim <em>fewer</em> slots; which slots exist is the
 * leak's alone, so the leak's bound on calls in any window holds whatever the shares say.
 *
 * <p>Pure: every instant is passed in (the lane's monotonic nanoseconds). Not thread-safe: the
 * lane calls it under its monitor.
 */
final class ClaimAllowance {
  /** How far above its share an instance may claim (see the class comment). */
  static final double SLACK = 0.02;

  private boolean capped;
  private double slotsPerNano;
  private double burst;
  private double slots;
  private long lastNanos;

  /** Starts uncapped: an instance claims freely until it learns it shares the provider. */
  ClaimAllowance(long nowNanos) {
    this.lastNanos = nowNanos;
  }

  /**
   * From {@code nowNanos}, this lane's part of the leak is {@code share} of
   * {@code ratePerSecond}. A share of 1 or more lifts the cap. A cap that starts now starts full.
   */
  void share(double share, double ratePerSecond, long lookaheadNanos, long nowNanos) {
    if (!(share < 1)) {
      capped = false;
      return;
    }
    refill(nowNanos);
    double perSecond = Math.max(0, share) * ratePerSecond * (1 + SLACK);
    slotsPerNano = perSecond / 1e9;
    burst = perSecond * lookaheadNanos / 1e9 + 1;
    if (!capped) {
      slots = burst;
      capped = true;
    }
    slots = Math.min(slots, burst);
  }

  /** No share is known (none published yet, or the last answer is stale): no cap. */
  void uncap() {
    capped = false;
  }

  boolean capped() {
    return capped;
  }

  /** How many of {@code wanted} slots may be claimed now. */
  int allows(int wanted, long nowNanos) {
    if (!capped) {
      return wanted;
    }
    refill(nowNanos);
    return (int) Math.min(wanted, Math.floor(slots));
  }

  /** A claim granted {@code granted} slots. */
  void took(int granted, long nowNanos) {
    if (capped) {
      refill(nowNanos);
      slots = Math.max(0, slots - granted);
    }
  }

  /** The leak had its next slot free (nobody holds it ahead): capacity is unused, fill up. */
  void leakIdle(long nowNanos) {
    refill(nowNanos);
    slots = burst;
  }

  /** How long until one slot may be claimed: 0 now, or when uncapped. */
  long nanosUntilOne(long nowNanos) {
    if (!capped) {
      return 0;
    }
    refill(nowNanos);
    if (slots >= 1) {
      return 0;
    }
    if (slotsPerNano <= 0) {
      return Long.MAX_VALUE;
    }
    return (long) Math.ceil((1 - slots) / slotsPerNano);
  }

  private void refill(long nowNanos) {
    long elapsed = nowNanos - lastNanos;
    if (elapsed > 0) {
      slots = Math.min(burst, slots + elapsed * slotsPerNano);
      lastNanos = nowNanos;
    }
  }
}
