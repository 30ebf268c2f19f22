package io.sluice.dispatcher.dispatch;

import io.sluice.schemas.event.Reason;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The events this dispatcher parked in Kafka that are not due back yet, per provider and reason,
 * counted by the second they are due: what {@code status} shows as waiting parked, how many, and
 * when they come back. Pure: time is passed in. Memory is a count per provider, reason and
 * second of due time (at most an hour of seconds: {@link WithoutCall#MAX_PARK_MILLIS}), not per
 * event. Thread-safe: parking happens on the consumer thread and on the calls' threads.
 */
final class ParkedLedger {
  /** What one provider's parked events wait for. */
  record Parked(Map<String, Integer> byReason, long nextDueMillis, long lastDueMillis) {
    int count() {
      return byReason.values().stream().mapToInt(Integer::intValue).sum();
    }
  }

  private final Map<String, Map<Reason, TreeMap<Long, Integer>>> due = new HashMap<>();

  /** {@code provider}'s event parked for {@code reason}, due back at {@code dueMillis}. */
  synchronized void parked(String provider, Reason reason, long dueMillis) {
    due.computeIfAbsent(provider, p -> new HashMap<>())
        .computeIfAbsent(reason, r -> new TreeMap<>())
        .merge(dueMillis / 1000, 1, Integer::sum);
  }

  /** What is parked and not due yet at {@code nowMillis}, per provider (none left out). */
  synchronized Map<String, Parked> at(long nowMillis) {
    long nowSecond = nowMillis / 1000;
    Map<String, Parked> out = new HashMap<>();
    due.values().forEach(byReason -> byReason.values()
        .forEach(seconds -> seconds.headMap(nowSecond).clear()));
    due.values().forEach(byReason -> byReason.values().removeIf(TreeMap::isEmpty));
    due.values().removeIf(Map::isEmpty);
    due.forEach((provider, byReason) -> {
      Map<String, Integer> counts = new TreeMap<>();
      long next = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (Map.Entry<Reason, TreeMap<Long, Integer>> r : byReason.entrySet()) {
        counts.put(r.getKey().code(), r.getValue().values().stream().mapToInt(Integer::intValue).sum());
        next = Math.min(next, r.getValue().firstKey() * 1000);
        last = Math.max(last, r.getValue().lastKey() * 1000 + 999);
      }
      out.put(provider, new Parked(counts, next, last));
    });
    return out;
  }
}
