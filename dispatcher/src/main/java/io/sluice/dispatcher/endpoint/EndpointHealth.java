package io.sluice.dispatcher.endpoint;

import io.sluice.dispatcher.provider.ProviderResult;

/**
 * Whether one tenant's endpoint is called: the automatic disabling of an endpoint that keeps
 * failing, and the probe that enables it again. Pure: every instant is passed in (milliseconds on
 * any one clock), and the lane carries out what it says.
 *
 * <h2>The rules</h2>
 * <ul>
 *   <li>A call <b>fails</b> when the endpoint gives no useful answer: a 5xx, a timeout, a refused
 *       or broken connection. Any other answer (2xx, 4xx, 429) shows the endpoint alive and ends
 *       a failing streak.
 *   <li>An endpoint is <b>disabled</b> when its calls have failed, with no answer between, for at
 *       least {@code disableAfter} and at least {@value #MIN_FAILURES} times (so one failure
 *       after a long quiet spell, or a single slow timeout, never disables it).
 *   <li>A disabled endpoint gets no call until {@code probeAfter} has passed; then exactly one
 *       call goes (the <b>probe</b>). An answer enables the endpoint; a failure disables it again
 *       for another {@code probeAfter}.
 *   <li>A call that was in flight when the endpoint was disabled still counts: its answer enables
 *       the endpoint, its failure changes nothing.
 * </ul>
 *
 * <p>Not thread-safe: the lane calls it under its own monitor.
 */
public final class EndpointHealth {
  /** The fewest failures in a row that can disable an endpoint. */
  public static final int MIN_FAILURES = 3;

  /** The endpoint's state. */
  public enum State {
    /** Called as its limits allow. */
    ENABLED,
    /** Not called until its probe is due. */
    DISABLED,
    /** Its one probe is in flight; nothing else is called. */
    PROBING
  }

  /** What a result changed, for the log line and the metric. */
  public enum Change {
    NONE,
    /** The endpoint was just disabled. */
    DISABLED,
    /** Its probe failed: disabled for another cool-off. */
    PROBE_FAILED,
    /** It was disabled and answered: enabled again. */
    ENABLED
  }

  private final long disableAfterMillis;
  private final long probeAfterMillis;
  private State state = State.ENABLED;
  /** When the current failing streak began; meaningful while {@link #failures} > 0. */
  private long failingSince;
  private int failures;
  /** When the probe of a disabled endpoint is due. */
  private long probeAt;

  public EndpointHealth(long disableAfterMillis, long probeAfterMillis) {
    if (disableAfterMillis <= 0 || probeAfterMillis <= 0) {
      throw new IllegalArgumentException("disableAfter and probeAfter must be above 0");
    }
    this.disableAfterMillis = disableAfterMillis;
    this.probeAfterMillis = probeAfterMillis;
  }

  public State state() {
    return state;
  }

  /** Whether the endpoint's events are held back now (disabled or probing). */
  public boolean disabled() {
    return state != State.ENABLED;
  }

  /** When a disabled endpoint's probe is due (meaningless while enabled). */
  public long probeAtMillis() {
    return probeAt;
  }

  /**
   * Whether a call may start now; if this is a disabled endpoint's due probe it becomes the
   * probe, and no other call may start until its result is in.
   */
  public boolean mayCall(long nowMillis) {
    switch (state) {
      case ENABLED:
        return true;
      case DISABLED:
        if (nowMillis - probeAt >= 0) {
          state = State.PROBING;
          return true;
        }
        return false;
      default:
        return false;
    }
  }

  /** A call answered (any status but 5xx): the endpoint is alive. */
  public Change answered() {
    failures = 0;
    if (state == State.ENABLED) {
      return Change.NONE;
    }
    state = State.ENABLED;
    return Change.ENABLED;
  }

  /** A call failed (5xx, timeout, connection): the streak grows, and may disable the endpoint. */
  public Change failed(long nowMillis) {
    switch (state) {
      case PROBING:
        state = State.DISABLED;
        probeAt = nowMillis + probeAfterMillis;
        return Change.PROBE_FAILED;
      case DISABLED:
        return Change.NONE; // a call from before the disabling: it is already known
      default:
        if (failures == 0) {
          failingSince = nowMillis;
        }
        failures = failures == Integer.MAX_VALUE ? failures : failures + 1;
        if (failures >= MIN_FAILURES && nowMillis - failingSince >= disableAfterMillis) {
          state = State.DISABLED;
          probeAt = nowMillis + probeAfterMillis;
          failures = 0;
          return Change.DISABLED;
        }
        return Change.NONE;
    }
  }

  /**
   * A probe that never reached the endpoint (its event was taken away: a revoked partition, a
   * pause) leaves the endpoint disabled, with its probe due again at once.
   */
  public void probeAbandoned(long nowMillis) {
    if (state == State.PROBING) {
      state = State.DISABLED;
      probeAt = nowMillis;
    }
  }

  /**
   * What a call's result says of its endpoint: failing (a 5xx, a timeout, a refused or broken
   * connection), alive (any other answer), or nothing (the call never left: no credential, a
   * request that cannot be sent).
   */
  public static Health of(ProviderResult result) {
    if (result instanceof ProviderResult.Answered a) {
      return a.status() >= 500 ? Health.FAILING : Health.ALIVE;
    }
    if (result instanceof ProviderResult.TimedOut || result instanceof ProviderResult.ConnectFailed) {
      return Health.FAILING;
    }
    if (result instanceof ProviderResult.Unauthorized) {
      return Health.ALIVE;
    }
    return Health.UNKNOWN;
  }

  /** What one result says of its endpoint ({@link #of}). */
  public enum Health {
    FAILING,
    ALIVE,
    UNKNOWN
  }

  /** Takes one result ({@link #of}): the change it makes, if any. */
  public Change take(ProviderResult result, long nowMillis) {
    return take(result, nowMillis, false);
  }

  /**
   * Takes one result, as {@link #take(ProviderResult, long)}; but a timeout that
   * {@code dispatcherLate} (the dispatcher ran late while the call was in flight, so its answer
   * may have waited in this process for a CPU) says nothing of the endpoint: the failing streak
   * neither grows nor ends, and a probe that ended so is due again at once. Only timeouts: a
   * 5xx is the endpoint's answer, and a refused connection is told from a connection that timed
   * out in this process by no cheap means ({@link ProviderResult.ConnectFailed} is both), so
   * both still count.
   */
  public Change take(ProviderResult result, long nowMillis, boolean dispatcherLate) {
    Health health = dispatcherLate && result instanceof ProviderResult.TimedOut
        ? Health.UNKNOWN : of(result);
    return switch (health) {
      case FAILING -> failed(nowMillis);
      case ALIVE -> answered();
      case UNKNOWN -> {
        probeAbandoned(nowMillis);
        yield Change.NONE;
      }
    };
  }
}
