package io.sluice.dispatcher.dispatch.lane;

import io.sluice.testkit.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A timer driven by a {@link FakeClock}: tasks run on the test's thread, in order of their due
 * time, when the test advances the clock past it ({@link #advance}). Only
 * {@link #schedule(Runnable, long, TimeUnit)} is supported, which is all a lane uses.
 */
public final class ManualTimer extends AbstractExecutorService implements ScheduledExecutorService {
  private record Task(long dueNanos, long sequence, Runnable run) {}

  private final FakeClock clock;
  private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> a.dueNanos() != b.dueNanos()
      ? Long.compare(a.dueNanos(), b.dueNanos()) : Long.compare(a.sequence(), b.sequence()));
  private long sequence;
  /** How long after its due time each task runs ({@link #runLate}). */
  private long lateNanos;

  public ManualTimer(FakeClock clock) {
    this.clock = clock;
  }

  /**
   * Moves the clock {@code by} forward, stopping at each task's due time to run it (tasks it
   * schedules within the span run too).
   */
  public void advance(Duration by) {
    long until = clock.nanos() + by.toNanos();
    while (!tasks.isEmpty() && tasks.peek().dueNanos() - until <= 0) {
      Task next = tasks.poll();
      if (next.dueNanos() - clock.nanos() > 0) {
        clock.advance(Duration.ofNanos(next.dueNanos() - clock.nanos()));
      }
      next.run().run();
    }
    clock.advance(Duration.ofNanos(until - clock.nanos()));
  }

  /**
   * From now on every task runs {@code lateNanos} after it is due, as on a starved process whose
   * timer thread waits that long for a CPU.
   */
  public void runLate(long lateNanos) {
    this.lateNanos = lateNanos;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    tasks.add(new Task(clock.nanos() + Math.max(0, unit.toNanos(delay)) + lateNanos, sequence++,
        command));
    return null; // the lane never uses it
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
      TimeUnit unit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay,
      long delay, TimeUnit unit) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void execute(Runnable command) {
    schedule(command, 0, TimeUnit.NANOSECONDS);
  }

  @Override
  public void shutdown() {
    tasks.clear();
  }

  @Override
  public List<Runnable> shutdownNow() {
    tasks.clear();
    return List.of();
  }

  @Override
  public boolean isShutdown() {
    return false;
  }

  @Override
  public boolean isTerminated() {
    return false;
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    return true;
  }
}
