package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.lane.LaneBacklog;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A provider's lanes' backlogs ({@link LaneBacklog}) as one instance tells them
 * ({@link Waits#tiers}, {@link Waits#oldestByTenant}). Pure.
 *
 * <p>Tenants are unbounded, and the waits of every instance are one Redis document read by every
 * {@code status}: at most {@link #MAX_TENANTS} tenants are told per provider, those whose oldest
 * queued event is oldest. So a tenant not listed while {@code tenantsWaiting} exceeds the list
 * has its oldest no older than the youngest listed.
 */
public final class Backlogs {
  /** Tenants told per provider at most. */
  public static final int MAX_TENANTS = 64;

  private Backlogs() {}

  /**
   * Per tier: cost summed over the lanes, the oldest first-seen, the latest drain (-1 when a lane
   * with some of the tier's cost has no drain estimate).
   */
  static Map<String, Waits.TierWait> tiers(List<LaneBacklog> lanes) {
    Map<String, long[]> merged = new TreeMap<>(); // cost, oldest, drain
    for (LaneBacklog lane : lanes) {
      lane.costByTier().forEach((tier, cost) -> {
        long[] m = merged.computeIfAbsent(tier, t -> new long[] {0, 0, 0});
        m[0] += cost;
        Long oldest = lane.oldestByTier().get(tier);
        if (oldest != null && (m[1] == 0 || oldest < m[1])) {
          m[1] = oldest;
        }
        Double seconds = lane.drainSecondsByTier().get(tier);
        long drain = seconds == null ? -1 : (long) Math.ceil(seconds * 1000);
        m[2] = m[2] < 0 || drain < 0 ? -1 : Math.max(m[2], drain);
      });
    }
    Map<String, Waits.TierWait> out = new TreeMap<>();
    merged.forEach((tier, m) -> out.put(tier, new Waits.TierWait(m[0], m[1], m[2])));
    return out;
  }

  /** Each tenant's oldest first-seen over the lanes, and how many tenants wait in all. */
  record Tenants(Map<String, Long> oldest, int waiting) {}

  /** The {@code max} tenants whose oldest is oldest (ties by name), and the count of all. */
  static Tenants tenants(List<LaneBacklog> lanes, int max) {
    Map<String, Long> all = new HashMap<>();
    lanes.forEach(l -> l.oldestByTenant().forEach((t, at) -> all.merge(t, at, Math::min)));
    List<Map.Entry<String, Long>> sorted = new ArrayList<>(all.entrySet());
    sorted.sort(Map.Entry.<String, Long>comparingByValue()
        .thenComparing(Map.Entry.comparingByKey(Comparator.naturalOrder())));
    Map<String, Long> kept = new LinkedHashMap<>();
    for (Map.Entry<String, Long> e : sorted.subList(0, Math.min(max, sorted.size()))) {
      kept.put(e.getKey(), e.getValue());
    }
    return new Tenants(kept, all.size());
  }
}
