package io.sluice.app.supervise;

import java.time.Duration;
import java.util.List;

/**
 * When a role whose loop stopped is started again, and when the process gives up instead. Pure:
 * the failure times and now are passed in.
 *
 * <p>A role may fail {@code maxRestarts} times within {@code window} and be restarted each time,
 * the n-th of them after {@code firstBackoff × 2^(n−1)}, at most {@code maxBackoff}. One more
 * failure within the window means restarting does not cure it (a broker refusing the role's
 * credentials, a bug met on every start): the process exits with a non-zero code, so that
 * whatever supervises it (systemd, Kubernetes, {@code docker compose restart: on-failure})
 * starts it afresh and counts it, which a JVM serving {@code /health} 503 for ever never got.
 *
 * @param maxRestarts  restarts allowed within {@code window}, 0 or more
 * @param window       how far back failures count
 * @param firstBackoff the wait before the first restart in the window
 * @param maxBackoff   the longest wait before a restart
 */
public record RestartPolicy(int maxRestarts, Duration window, Duration firstBackoff,
    Duration maxBackoff) {
  /** Five restarts within ten minutes, after 1 s, 2 s, 4 s, 8 s and 16 s; the sixth failure exits. */
  public static final RestartPolicy DEFAULT = new RestartPolicy(5, Duration.ofMinutes(10),
      Duration.ofSeconds(1), Duration.ofSeconds(30));

  public RestartPolicy {
    if (maxRestarts < 0 || window.isNegative() || window.isZero() || firstBackoff.isNegative()
        || maxBackoff.compareTo(firstBackoff) < 0) {
      throw new IllegalArgumentException("restart policy " + maxRestarts + " within " + window
          + ", backoff " + firstBackoff + " to " + maxBackoff);
    }
  }

  /** What to do after a failure. */
  public sealed interface Decision {}

  /** Start the role again after {@code waitMillis}; this is failure {@code failures} in the window. */
  public record Restart(long waitMillis, int failures) implements Decision {}

  /** Stop trying: {@code failures} failures within the window, more than the restarts allowed. */
  public record GiveUp(int failures) implements Decision {}

  /**
   * @param failureMillis the times of the role's failures, oldest first, the one just now last
   * @param nowMillis     now
   */
  public Decision decide(List<Long> failureMillis, long nowMillis) {
    long since = nowMillis - window.toMillis();
    int recent = (int) failureMillis.stream().filter(t -> t > since).count();
    if (recent > maxRestarts) {
      return new GiveUp(recent);
    }
    int doublings = Math.min(30, Math.max(0, recent - 1));
    long wait = Math.min(maxBackoff.toMillis(), firstBackoff.toMillis() << doublings);
    return new Restart(wait, recent);
  }
}
