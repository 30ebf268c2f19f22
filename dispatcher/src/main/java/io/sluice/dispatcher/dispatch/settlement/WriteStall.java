package io.sluice.dispatcher.dispatch.settlement;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Whether new provider calls must wait because this dispatcher's settlements are not being
 * acknowledged by Kafka: a pure decision, time passed in.
 *
 * <h2>Why calls wait</h2>
 * An answer is safe from a SIGKILL once its outcome is acknowledged, or once the delivered log
 * (Redis) shows it delivered, a round after the call. While the broker is away neither the outcome
 * nor, on that broker's restart, the group's commit goes through, so every answer this process
 * holds is at the mercy of a crash: the chaos run's duplicate calls were answers taken while the
 * broker was away, then lost to a SIGKILL and called again by the next owner. Calling on while
 * nothing can be written only grows that stake (and the outcomes held in memory). So when the
 * settlements stop being acknowledged, calls stop, and a kill then risks what was in flight.
 *
 * <h2>The bound</h2>
 * Calls wait while the oldest settlement not yet acknowledged was handed to the writer more than
 * {@link #OLDEST_MILLIS} ago, or more than {@link #MOST} are unacknowledged. A settlement is
 * normally acknowledged within tens of milliseconds (a 10 ms linger and one round trip to the
 * in-sync replicas), and the producer's request timeout is 15 s: 2 s is far beyond the first and
 * well within a broker restart. {@link #MOST} is a second of the busiest dispatcher's settlements
 * (a few thousand a second), never reached while acknowledgements flow. Calls go again as soon as
 * the backlog is acknowledged (the oldest younger than the bound): there is nothing to
 * smooth, the broker either answers or not.
 *
 * <p>A settlement Kafka refuses permanently is not counted (the writer takes it out and reports it
 * as a {@code problem()}): one topic with a wrong ACL must not stop every provider.
 */
public final class WriteStall {
  /** The oldest unacknowledged settlement may be this old before calls wait. */
  public static final long OLDEST_MILLIS = 2_000;
  /** More unacknowledged settlements than this and calls wait. */
  public static final int MOST = 5_000;

  private WriteStall() {}

  /**
   * Why calls must wait now, or empty when they may go.
   *
   * @param nowNanos       the dispatcher's monotonic clock
   * @param oldestNanos    when the oldest unacknowledged settlement was handed to the writer
   *                       (same clock); ignored when {@code unacknowledged} is 0
   * @param unacknowledged settlements handed to the writer and not yet acknowledged
   */
  public static Optional<String> why(long nowNanos, long oldestNanos, int unacknowledged) {
    if (unacknowledged <= 0) {
      return Optional.empty();
    }
    long ageMillis = TimeUnit.NANOSECONDS.toMillis(nowNanos - oldestNanos);
    if (ageMillis > OLDEST_MILLIS) {
      return Optional.of(unacknowledged + " settlements unacknowledged by Kafka, the oldest for "
          + ageMillis + " ms (more than " + OLDEST_MILLIS + " ms)");
    }
    if (unacknowledged > MOST) {
      return Optional.of(unacknowledged + " settlements unacknowledged by Kafka (more than "
          + MOST + ")");
    }
    return Optional.empty();
  }
}
