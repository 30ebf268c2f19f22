package io.sluice.dispatcher.endpoint;

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
 * <p>Not thread-safe: the consumer thread owns it.
 *
 * @param <L> the lane
 */
public final class EndpointLanes<L> {
  private final int maxLanes;
  private final long idleMillis;
  private final Map<Key, Live<L>> live = new HashMap<>();

  /** One tenant's endpoint of one provider. */
  public record Key(String provider, String tenant) {
    /** The lane's name: its leak's, its learned limits' and its pause's key, shared by instances. */
    public String laneName() {
      return provider + "/" + tenant;
    }
  }

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
  public Opened<L> open(Key key, long nowMillis, Predicate<L> idle, Supplier<L> make) {
    Live<L> found = live.get(key);
    if (found != null) {
      found.lastUsedMillis = nowMillis;
      return new Opened<>(Optional.of(found.lane), Optional.empty(), false);
    }
    Optional<L> retired = Optional.empty();
    if (live.size() >= maxLanes) {
      // At the bound only: one pass over at most maxLanes lanes.
      Map.Entry<Key, Live<L>> longestIdle = null;
      for (Map.Entry<Key, Live<L>> e : live.entrySet()) {
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
  public Optional<L> get(Key key) {
    Live<L> found = live.get(key);
    return Optional.ofNullable(found == null ? null : found.lane);
  }

  /** The lane was used now (an event given back to it, a call ended): it is not idle. */
  public void touch(Key key, long nowMillis) {
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
    Iterator<Map.Entry<Key, Live<L>>> it = live.entrySet().iterator();
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
  public Optional<L> remove(Key key) {
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
