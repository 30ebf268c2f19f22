package io.sluice.dispatcher.endpoint;

import io.sluice.dispatcher.LaneId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The live lanes of tenants' endpoints, one per (provider, tenant), that exist while the endpoint
 * has work: a lane is opened by its first event and retired once idle for {@code idleMillis}, so
 * memory and Redis keys grow with the endpoints that are busy, not with those configured.
 * Pure: time is passed in, and whether a lane is idle (nothing queued, nothing in flight, not
 * disabled) is the caller's predicate.
 *
 * <h2>The bound</h2>
 * At most {@code maxLanes} live at once on one instance. Opening one more first retires the lane
 * idle the longest, if any is idle at all (however recently); with every lane busy the event is
 * not given a lane ({@link Opened#full}): the caller defers it round the ladder, no attempt spent,
 * as it does an event meeting a full buffer, and it comes back when lanes may have drained.
 *
 * <h2>First slots spread over an interval</h2>
 * Lanes opened together (a burst across many tenants, a dispatcher's start with a backlog) would
 * take their first slots at one instant and, each then spaced exactly by its own leak, keep that
 * phase: a thousand endpoints at 2/s make a thousand calls at once every half second, the last of
 * each batch sent up to a few hundred milliseconds after the first, and which endpoint's call is
 * late changes from batch to batch, so a strict endpoint sees two calls closer than its limit.
 * So the {@code k}th lane opened waits {@link #firstClaimDelayNanos} before its first claim: the
 * fractional part of {@code k} times the golden ratio, of one interval (at most a second). However
 * many lanes open together, their first slots, and so their phases, are spread nearly evenly over
 * the interval (consecutive multiples of the golden ratio leave at most three sizes of gap, the
 * largest under 2.7 times the even one), and the first lane opened waits nothing.
 *
 * <p>Not thread-safe: the consumer thread owns it.
 *
 * @param <L> the lane
 */
public final class EndpointLanes<L> {
  private final int maxLanes;
  private final long idleMillis;
  private final Map<LaneId, Live<L>> live = new HashMap<>();


  private static final class Live<L> {
    final L lane;
    long lastUsedMillis;

    Live(L lane, long now) {
      this.lane = lane;
      this.lastUsedMillis = now;
    }
  }

  /**
   * What {@link #open} gave: the lane (empty when {@code full}), and the lane it retired to make
   * room, which the caller closes.
   */
  public record Opened<L>(Optional<L> lane, Optional<L> retired, boolean created) {
    public boolean full() {
      return lane.isEmpty();
    }
  }

  /** The golden ratio's fractional part: the step between consecutive lanes' phases. */
  private static final double GOLDEN_STEP = (Math.sqrt(5) - 1) / 2;
  private static final long SECOND_NANOS = 1_000_000_000L;

  /**
   * How long the {@code k}th lane opened (from 0) waits before its first claim, its slots
   * {@code intervalNanos} apart: {@code frac(k * 0.618...)} of the interval, and of a second at
   * most (a slow endpoint's first call is not held back by more).
   */
  public static long firstClaimDelayNanos(long k, long intervalNanos) {
    double phase = (k % 1_000_000_007L) * GOLDEN_STEP % 1.0;
    return (long) (phase * Math.max(0, Math.min(intervalNanos, SECOND_NANOS)));
  }

  public EndpointLanes(int maxLanes, long idleMillis) {
    if (maxLanes < 1 || idleMillis < 0) {
      throw new IllegalArgumentException("maxLanes >= 1 and idleMillis >= 0");
    }
    this.maxLanes = maxLanes;
    this.idleMillis = idleMillis;
  }

  /**
   * The endpoint's lane, made by {@code make} if it has none; past the bound, the lane idle the
   * longest is retired for it, or, with none idle, none is given.
   */
  public Opened<L> open(LaneId key, long nowMillis, Predicate<L> idle, Supplier<L> make) {
    Live<L> found = live.get(key);
    if (found != null) {
      found.lastUsedMillis = nowMillis;
      return new Opened<>(Optional.of(found.lane), Optional.empty(), false);
    }
    Optional<L> retired = Optional.empty();
    if (live.size() >= maxLanes) {
      // At the bound only: one pass over at most maxLanes lanes.
      Map.Entry<LaneId, Live<L>> longestIdle = null;
      for (Map.Entry<LaneId, Live<L>> e : live.entrySet()) {
        if ((longestIdle == null
            || e.getValue().lastUsedMillis < longestIdle.getValue().lastUsedMillis)
            && idle.test(e.getValue().lane)) {
          longestIdle = e;
        }
      }
      if (longestIdle == null) {
        return new Opened<>(Optional.empty(), Optional.empty(), false);
      }
      live.remove(longestIdle.getKey());
      retired = Optional.of(longestIdle.getValue().lane);
    }
    L lane = make.get();
    live.put(key, new Live<>(lane, nowMillis));
    return new Opened<>(Optional.of(lane), retired, true);
  }

  /** The endpoint's lane if it is live (not counted as a use). */
  public Optional<L> get(LaneId key) {
    Live<L> found = live.get(key);
    return Optional.ofNullable(found == null ? null : found.lane);
  }

  /** The lane was used now (an event given back to it, a call ended): it is not idle. */
  public void touch(LaneId key, long nowMillis) {
    Live<L> found = live.get(key);
    if (found != null) {
      found.lastUsedMillis = nowMillis;
    }
  }

  /**
   * Retires, and returns for the caller to close, every lane that is idle now and was last used
   * at least {@code idleMillis} ago.
   */
  public List<L> retireIdle(long nowMillis, Predicate<L> idle) {
    List<L> retired = new ArrayList<>();
    Iterator<Map.Entry<LaneId, Live<L>>> it = live.entrySet().iterator();
    while (it.hasNext()) {
      Live<L> l = it.next().getValue();
      if (nowMillis - l.lastUsedMillis >= idleMillis && idle.test(l.lane)) {
        it.remove();
        retired.add(l.lane);
      }
    }
    return retired;
  }

  /**
   * Takes the endpoint's lane out, busy or not, for the caller to finish and close (its endpoint
   * changed: the next event opens a new lane); empty when it has none.
   */
  public Optional<L> remove(LaneId key) {
    Live<L> found = live.remove(key);
    return Optional.ofNullable(found == null ? null : found.lane);
  }

  /** Every live lane. */
  public Collection<L> lanes() {
    List<L> lanes = new ArrayList<>(live.size());
    live.values().forEach(l -> lanes.add(l.lane));
    return lanes;
  }

  public int size() {
    return live.size();
  }
}
