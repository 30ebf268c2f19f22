package io.sluice.dispatcher.dispatch.intake;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * Which partitions to stop reading because everything read from them only overflows.
 *
 * <p>A lane whose buffer is full defers the entry it would serve last through the ladder
 * ({@code Reason.OVERFLOW}), so that a slow provider never holds up a fast one behind it in the
 * same partition. When a provider's backlog is far larger than its buffer, though, every record
 * read from the backlog is that last entry: it goes to a delay topic and the relay hands it back a
 * buffer's drain time later, to overflow again while the backlog lasts. Each event of a backlog of
 * N at a rate r is then copied round the ladder about {@code N / bufferSize} times, and the work
 * grows with the square of the backlog. Measured: at 1,000/s with a 13,000-event backlog the relay
 * and the broker's request handlers took 38% of a 2-core machine's CPU, and the leak reached 0.67 of
 * its rate.
 *
 * <p>So a partition whose last {@code streakToPause} arrivals all met a full buffer (each of them
 * overflowed, itself or the entry the fair queue would serve after it) stops being read until
 * either
 * <ul>
 *   <li>a lane those arrivals met full has drained to {@code resumeAtOrBelow} queued entries (half
 *       its buffer: room for what one poll brings, and still a good second of work queued at any
 *       rate, so the lane never runs dry waiting for the read), or</li>
 *   <li>{@code maxPauseNanos} has passed: the smallest ladder step, which is the least time an
 *       overflowed record would have waited anyway. A record of another provider behind the
 *       backlog in that partition waits no longer than its own overflow would have made it.</li>
 * </ul>
 * An arrival that is queued without pushing anything out resets the streak.
 *
 * <p>Why this keeps the tiers' shares: while a buffer is full, reading on only changes which
 * entries overflow (a gold arrival pushes out a queued free entry, which will be read again). The
 * buffer paused at full holds what the fair queue kept, the entries it serves first; by the time
 * half of them are served, each tier has had its weighted share of that half, and the next poll
 * brings every tier's backlog in again before any tier's entries can have run out (a tier runs out
 * only if it had fewer than its share of half a buffer queued, and then it was not backlogged).
 *
 * <p>Pure and single-threaded (the consumer thread owns it); instants are {@code System.nanoTime}
 * values passed in.
 *
 * @param <P> what is paused: a partition
 */
public final class OverflowPause<P> {
  private final int streakToPause;
  private final long maxPauseNanos;
  private final Map<P, Streak> streaks = new HashMap<>();

  /** A partition's arrivals in a row that met a full buffer, in which lanes, and when it paused. */
  private static final class Streak {
    int overflows;
    final Set<String> lanes = new HashSet<>();
    boolean paused;
    long pausedAtNanos;
  }

  /**
   * @param streakToPause consecutive arrivals of a partition that overflowed themselves, after
   *                      which it is paused (at least 1)
   * @param maxPauseNanos the longest a partition stays paused for this reason
   */
  public OverflowPause(int streakToPause, long maxPauseNanos) {
    if (streakToPause < 1 || maxPauseNanos <= 0) {
      throw new IllegalArgumentException("streakToPause >= 1 and maxPauseNanos > 0: "
          + streakToPause + ", " + maxPauseNanos);
    }
    this.streakToPause = streakToPause;
    this.maxPauseNanos = maxPauseNanos;
  }

  /** An arrival of {@code partition} was queued and pushed nothing out. */
  public void queued(P partition) {
    streaks.remove(partition);
  }

  /** An arrival of {@code partition} met {@code lane}'s buffer full: it or another entry overflowed. */
  public void overflowed(P partition, String lane, long nowNanos) {
    Streak s = streaks.computeIfAbsent(partition, p -> new Streak());
    s.overflows++;
    s.lanes.add(lane);
    if (!s.paused && s.overflows >= streakToPause) {
      s.paused = true;
      s.pausedAtNanos = nowNanos;
    }
  }

  /**
   * The partitions to keep paused now; those whose lanes have room again, or whose pause has
   * lasted {@code maxPauseNanos}, are released (and start a new streak).
   *
   * @param queued          entries queued now in a lane, by name
   * @param resumeAtOrBelow queued entries at or below which a lane has room again
   */
  public Set<P> paused(long nowNanos, ToIntFunction<String> queued, int resumeAtOrBelow) {
    Set<P> paused = new HashSet<>();
    var it = streaks.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<P, Streak> e = it.next();
      Streak s = e.getValue();
      if (!s.paused) {
        continue;
      }
      boolean room = s.lanes.stream().anyMatch(lane -> queued.applyAsInt(lane) <= resumeAtOrBelow);
      if (room || nowNanos - s.pausedAtNanos >= maxPauseNanos) {
        it.remove();
      } else {
        paused.add(e.getKey());
      }
    }
    return paused;
  }

  /** Forgets partitions no longer assigned here. */
  public void retainOnly(Set<P> assigned) {
    streaks.keySet().retainAll(assigned);
  }
}
