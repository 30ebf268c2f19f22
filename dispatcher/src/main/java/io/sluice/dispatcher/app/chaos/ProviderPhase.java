package io.sluice.dispatcher.app.chaos;

/**
 * What the chaos provider does to the calls it gets, in scheduled phases over the load period
 * (fractions of it), the same for every provider. Between and after the phases it is
 * {@link #NORMAL}: it answers 200 within its strict limit and 429 beyond it.
 */
public enum ProviderPhase {
  NORMAL,
  /** Every other call gets a 500. */
  ERRORS,
  /** Every third call is held past the client's timeout before it is answered. */
  TIMEOUTS,
  /** Every call gets 429 with {@code Retry-After}, whatever the rate. */
  STORM,
  /** Every call takes {@link ChaosProvider#SLOW_MILLIS} to answer. */
  SLOW;

  /** The phase at {@code elapsedMillis} into a load period of {@code loadMillis}. */
  public static ProviderPhase at(long elapsedMillis, long loadMillis) {
    if (elapsedMillis < 0 || loadMillis <= 0) {
      return NORMAL;
    }
    double f = (double) elapsedMillis / loadMillis;
    if (f >= 0.12 && f < 0.20) {
      return ERRORS;
    }
    if (f >= 0.30 && f < 0.36) {
      return TIMEOUTS;
    }
    if (f >= 0.46 && f < 0.52) {
      return STORM;
    }
    if (f >= 0.64 && f < 0.74) {
      return SLOW;
    }
    return NORMAL;
  }
}
