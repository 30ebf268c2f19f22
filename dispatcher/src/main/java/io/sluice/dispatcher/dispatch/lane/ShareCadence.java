package io.sluice.dispatcher.dispatch.lane;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * When a lane tells the other instances sharing its provider how many busy tenants of each tier
 * it holds, and whether the share it last heard back is still to be trusted. Pure: every instant
 * is passed in, on the lane's monotonic clock.
 *
 * <ul>
 *   <li>At most one publication is out at a time, and at most one starts every
 *       {@value #SHARE_EVERY_MILLIS} ms; one out for longer than {@link #SHARE_STALE_NANOS} is
 *       given up (its answer may never come).
 *   <li>A lane publishes while it has busy tenants, and once more when it has none, which
 *       withdraws it; a lane that stays empty publishes nothing.
 *   <li>A share not confirmed for {@link #SHARE_STALE_NANOS} is stale: the lane claims as if alone.
 * </ul>
 *
 * <p>Not thread-safe: its lane calls it under the lane's monitor.
 */
final class ShareCadence {
  /** How often a lane with work tells the others sharing its provider what it holds. */
  static final long SHARE_EVERY_MILLIS = 250;
  static final long SHARE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(SHARE_EVERY_MILLIS);
  /** A lane not heard from for this long drops out of the sums (it stopped or died). */
  static final long SHARE_TTL_MICROS = TimeUnit.SECONDS.toMicros(1);
  /** A share not confirmed for this long is not trusted: the lane claims as if alone. */
  static final long SHARE_STALE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** A publication is out. */
  private boolean sharing;
  private long lastShareNanos = Long.MIN_VALUE / 2;
  /** When the last publication was answered. */
  private long shareHeardNanos;
  /** What the last publication said: an empty one withdrew the lane. */
  private Map<String, Integer> publishedBusy = Map.of();

  /** The share last heard is too old to trust (or none was ever heard). */
  boolean stale(long nowNanos) {
    return nowNanos - shareHeardNanos > SHARE_STALE_NANOS;
  }

  /**
   * Whether a publication may start now: none is out (or the one out is given up), and the last
   * started at least {@link #SHARE_EVERY_NANOS} ago. Asked first, so that the lane counts its busy
   * tenants only when it may publish them.
   */
  boolean due(long nowNanos) {
    return !((sharing && nowNanos - lastShareNanos < SHARE_STALE_NANOS)
        || nowNanos - lastShareNanos < SHARE_EVERY_NANOS);
  }

  /**
   * Whether to publish {@code busy}, asked when {@link #due}: not when it is empty and so was the
   * last one. If so, the publication counts as out from {@code nowNanos} until {@link #answered}.
   */
  boolean publish(Map<String, Integer> busy, long nowNanos) {
    if (busy.isEmpty() && publishedBusy.isEmpty()) {
      return false;
    }
    sharing = true;
    lastShareNanos = nowNanos;
    publishedBusy = busy;
    return true;
  }

  /** The publication came back: {@code heard} if the leak answered, not if it failed. */
  void answered(boolean heard, long nowNanos) {
    sharing = false;
    if (heard) {
      shareHeardNanos = nowNanos;
    }
  }
}
