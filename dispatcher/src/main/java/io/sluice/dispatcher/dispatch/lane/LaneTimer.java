package io.sluice.dispatcher.dispatch.lane;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Runs a lane's due slots, waits and retries on the timer the lanes share. */
final class LaneTimer {
  private final ScheduledExecutorService timer;

  LaneTimer(ScheduledExecutorService timer) {
    this.timer = timer;
  }

  /** Runs {@code task} in {@code delayNanos}; nothing, once the dispatcher is closing. */
  void later(Runnable task, long delayNanos) {
    try {
      timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RuntimeException rejected) {
      // The timer is shut down: the dispatcher is closing.
    }
  }
}
