package io.sluice.lab.chaos;

/**
 * What the chaos provider does to the calls it gets, in scheduled phases over the load period
 * (fractions of it), the same for every provider. Between the phases it is {@link #NORMAL}: it answers 200 within its strict limit and 429 beyond it.
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
  SLOW,
  /**
   * From 78% of the load, each provider's first {@link ChaosProvider#HOSTILE_ANSWERS} answers are
   * as hostile as answers get (issue 20), alternately: a 429 with {@code Retry-After: 86400},
   * {@code RateLimit-Policy: "trap";q=0;w=2678400, "daily";q=1;w=86400} and
   * {@code RateLimit: "daily";r=0;t=86400}; and, within the limit, a 200 saying
   * {@code X-RateLimit-Limit: 1}, {@code -Remaining: 0} and a reset a day away (epoch seconds).
   * Counted, not timed, and on until given, so that a gap in the calls (a fault) cannot skip
   * them. After them every answer (this phase lasts to the end of the run) states the provider's
   * real limits again ({@link ChaosProvider#RESTATED_POLICY}), as a
   * provider that announces them does.
   */
  HOSTILE;

  static final double HOSTILE_FROM = 0.78;

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
    if (f >= HOSTILE_FROM) {
      return HOSTILE;
    }
    return NORMAL;
  }
}
