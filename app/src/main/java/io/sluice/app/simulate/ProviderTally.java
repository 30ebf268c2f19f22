package io.sluice.app.simulate;

/**
 * A provider's calls in a simulation: how many, and the most made in one second of the virtual
 * clock (whole seconds, aligned on the epoch), beside the rate its configuration states.
 */
public final class ProviderTally {
  private final double limitPerSecond;
  private long calls;
  private long second = Long.MIN_VALUE;
  private long inSecond;
  private long maxPerSecond;

  ProviderTally(double limitPerSecond) {
    this.limitPerSecond = limitPerSecond;
  }

  void called(long atMicros) {
    calls++;
    long s = Math.floorDiv(atMicros, 1_000_000L);
    if (s != second) {
      second = s;
      inSecond = 0;
    }
    inSecond++;
    maxPerSecond = Math.max(maxPerSecond, inSecond);
  }

  public double limitPerSecond() {
    return limitPerSecond;
  }

  public long calls() {
    return calls;
  }

  /** The most calls in one aligned second. */
  public long maxPerSecond() {
    return maxPerSecond;
  }
}
