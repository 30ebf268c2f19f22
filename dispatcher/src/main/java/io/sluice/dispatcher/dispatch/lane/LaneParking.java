package io.sluice.dispatcher.dispatch.lane;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * Which of a lane's entries wait in Kafka rather than in its queue, and for how long: one it
 * turns away (its buffer full), and those it trims when it may not call for a while. Each turn is
 * worked out by {@link ParkingSchedule}. Pure: every instant and the lane's paced rate are passed
 * in, and the queue is in memory.
 *
 * <p>Not thread-safe: its lane calls it under the lane's monitor.
 */
final class LaneParking {
  private final ParkingSchedule parking = new ParkingSchedule();
  private final LaneQueue queue;

  LaneParking(LaneQueue queue) {
    this.queue = queue;
  }

  /**
   * How long an entry turned away now waits before the lane can take it: behind what is queued
   * and what was parked before it, after the lane's hold ({@link ParkingSchedule#park}); one
   * {@code returning} from a park, behind what is queued only. Moves the tail otherwise: ask once
   * per entry turned away.
   *
   * @param perSecond    the lane's paced rate
   * @param readyAtNanos when the lane may call again
   */
  long parkNanos(long nowNanos, double perSecond, long readyAtNanos, boolean returning) {
    return parking.park(nowNanos, queue.size(), perSecond, readyAtNanos, returning) - nowNanos;
  }

  /**
   * When the lane may not call for longer than {@code keepNanos}, takes every queued entry it
   * could not call within {@code keepNanos} out of the queue (all but the first, at least), each
   * with its wait, in the order they would have been served. Nothing, when the lane may call
   * within {@code keepNanos}: its backlog drains, and overflows at its turn.
   *
   * @param pacedPerSecond the lane's paced rate, asked only when the lane may not call within
   *                       {@code keepNanos} (asking may refresh learned limits)
   */
  List<ParkedEntry> trim(long nowNanos, DoubleSupplier pacedPerSecond,
      long readyAtNanos, long keepNanos) {
    if (readyAtNanos - nowNanos <= keepNanos) {
      return List.of();
    }
    double perSecond = pacedPerSecond.getAsDouble();
    int keeps = ParkingSchedule.keeps(nowNanos, perSecond, readyAtNanos, keepNanos);
    if (queue.size() <= keeps) {
      return List.of();
    }
    List<DispatchEntry> removed = queue.keepFirst(keeps);
    List<ParkedEntry> parked = new ArrayList<>(removed.size());
    int ahead = keeps;
    for (DispatchEntry e : removed) {
      parked.add(new ParkedEntry(e,
          parking.park(nowNanos, ahead++, perSecond, readyAtNanos) - nowNanos));
    }
    return parked;
  }
}
