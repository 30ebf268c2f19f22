package io.sluice.dispatcher.leak;

import io.sluice.config.ProviderLimit;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a provider's windows and leases remember, kept in process: the mirror of the Redis keys
 * {@code lua/leaky_bucket.lua} keeps beside the leak hash (one per limit). Pure (time is passed
 * in) and not thread-safe: {@link LimitMath} uses it under its caller's lock.
 *
 * <ul>
 *   <li>a sliding window of up to a minute is a log of granted slot times with their weights
 *       (Redis: a sorted set scored by slot time, member {@code <slot>:<weight>}); its span is
 *       {@code per + margin};
 *   <li>a sliding window longer than a minute ({@link #isCoarse}) is {@value #SUB_WINDOWS}
 *       sub-window counters: the units granted in each sub-window {@code floor(slot / g)},
 *       {@code g = ceil(span / 60)} (Redis: a hash, field the sub-window index). A claim reads at
 *       most 61 of them (plus those a lookahead ahead), however many calls the window holds: a
 *       learned {@code 1000000 per day} is 61 counters, not a log of a million members;
 *   <li>a fixed window is the units charged to each window index {@code floor(slot / per)}
 *       (Redis: a hash, field the index);
 *   <li>concurrency is a set of leases with their expiry (Redis: a sorted set scored by expiry).
 * </ul>
 */
final class WindowLedger {
  private final Map<String, ArrayDeque<long[]>> logs = new HashMap<>();
  private final Map<String, TreeMap<Long, Long>> fixed = new HashMap<>();
  private final Map<String, TreeMap<Long, Long>> subWindows = new HashMap<>();
  /** How many sub-windows a coarse sliding window's span is cut into. */
  public static final int SUB_WINDOWS = 60;
  /** Sliding windows with a longer {@code per} than this are kept as sub-window counters. */
  public static final long LONGEST_LOGGED_MICROS = 60_000_000;

  /**
   * Whether a sliding window is kept as sub-window counters rather than a log: its {@code per} is
   * longer than a minute. Decided by the window alone, like its Redis key's name, so a key never
   * changes kind.
   */
  static boolean isCoarse(ProviderLimit limit) {
    return limit.window() == ProviderLimit.Window.SLIDING && perMicros(limit) > LONGEST_LOGGED_MICROS;
  }

  /** The length of a coarse window's sub-windows: its span over {@value #SUB_WINDOWS}, rounded up. */
  static long subWindowMicros(ProviderLimit limit) {
    return (spanMicros(limit) + SUB_WINDOWS - 1) / SUB_WINDOWS;
  }
  private final TreeMap<String, Long> leases = new TreeMap<>();

  /** Forgets what no slot at or after {@code nowMicros} can be judged by. */
  void evict(long nowMicros, ProviderLimit limit) {
    switch (limit.kind()) {
      case CALLS, COST -> {
        if (isCoarse(limit)) {
          long g = subWindowMicros(limit);
          subs(limit).headMap(Math.floorDiv(nowMicros - spanMicros(limit), g)).clear();
        } else if (limit.window() == ProviderLimit.Window.SLIDING) {
          ArrayDeque<long[]> log = log(limit);
          long span = spanMicros(limit);
          while (!log.isEmpty() && log.peekFirst()[0] <= nowMicros - span) {
            log.pollFirst();
          }
        } else {
          windows(limit).headMap(Math.floorDiv(nowMicros, perMicros(limit))).clear();
        }
      }
      case CONCURRENCY -> leases.values().removeIf(expiry -> expiry <= nowMicros);
      default -> { }
    }
  }

  /**
   * After a loss of the provider's keys: a window limit that holds nothing (its key is gone) is
   * charged its whole amount at {@code lostSlot}, the latest instant a lost slot can have been
   * granted at, while that still matters at {@code nowMicros}. Sliding: one entry of
   * {@code amount} at {@code lostSlot} (a coarse one: its sub-window holds {@code amount}); fixed: every window from the current one to the one
   * {@code lostSlot + margin} falls in is full. (The script keeps this in memory for the claim and
   * writes only granted slots; a mirror entry here is evicted like any other and decides the
   * same.)
   */
  void assumeLost(ProviderLimit limit, long nowMicros, long lostSlot) {
    long amount = (long) limit.amount();
    if (isCoarse(limit)) {
      TreeMap<Long, Long> subs = subs(limit);
      if (subs.isEmpty() && nowMicros - spanMicros(limit) < lostSlot) {
        subs.put(Math.floorDiv(lostSlot, subWindowMicros(limit)), amount);
      }
      return;
    }
    if (limit.window() == ProviderLimit.Window.SLIDING) {
      ArrayDeque<long[]> log = log(limit);
      if (log.isEmpty() && nowMicros - spanMicros(limit) < lostSlot) {
        log.addLast(new long[] {lostSlot, amount});
      }
      return;
    }
    TreeMap<Long, Long> used = windows(limit);
    if (used.isEmpty()) {
      long per = perMicros(limit);
      for (long k = Math.floorDiv(nowMicros, per);
          k <= Math.floorDiv(lostSlot + marginMicros(limit), per); k++) {
        used.put(k, amount);
      }
    }
  }

  /**
   * The earliest instant at or after {@code slot} where {@code weight} more units fit in this
   * window limit ({@code Long.MAX_VALUE}: never, the weight is above the amount). A slot that
   * fits returns itself.
   */
  long earliest(ProviderLimit limit, long slot, long weight) {
    long amount = (long) limit.amount();
    if (weight > amount) {
      return Long.MAX_VALUE;
    }
    if (isCoarse(limit)) {
      // Every sub-window that reaches into (slot - span, slot] counts whole: at least what the
      // window holds, never less (see LimitMath, "Long sliding windows").
      long span = spanMicros(limit);
      long g = subWindowMicros(limit);
      SortedMap<Long, Long> counted = subs(limit).tailMap(Math.floorDiv(slot - span, g));
      long held = 0;
      for (long units : counted.values()) {
        held += units;
      }
      long excess = held + weight - amount;
      if (excess <= 0) {
        return slot;
      }
      // Sub-window b stops counting once slot - span reaches its end, (b + 1) * g.
      for (Map.Entry<Long, Long> e : counted.entrySet()) {
        excess -= e.getValue();
        if (excess <= 0) {
          return (e.getKey() + 1) * g + span;
        }
      }
      throw new IllegalStateException("unreachable: the sub-windows hold more than their excess");
    }
    if (limit.window() == ProviderLimit.Window.SLIDING) {
      long span = spanMicros(limit);
      long held = 0;
      for (long[] e : log(limit)) {
        if (e[0] > slot - span) {
          held += e[1];
        }
      }
      long excess = held + weight - amount;
      if (excess <= 0) {
        return slot;
      }
      // The oldest units in the window leave it one span after their slot.
      for (long[] e : log(limit)) {
        if (e[0] > slot - span) {
          excess -= e[1];
          if (excess <= 0) {
            return e[0] + span;
          }
        }
      }
      throw new IllegalStateException("unreachable: the log holds more than its excess");
    }
    long per = perMicros(limit);
    long k1 = Math.floorDiv(slot, per);
    long k2 = Math.floorDiv(slot + marginMicros(limit), per);
    TreeMap<Long, Long> used = windows(limit);
    if (used.getOrDefault(k1, 0L) + weight <= amount && used.getOrDefault(k2, 0L) + weight <= amount) {
      return slot;
    }
    return (k1 + 1) * per;
  }

  /** Charges a granted slot to this window limit (after {@link #earliest} said it fits). */
  void record(ProviderLimit limit, long slot, long weight) {
    if (isCoarse(limit)) {
      subs(limit).merge(Math.floorDiv(slot, subWindowMicros(limit)), weight, Long::sum);
      return;
    }
    if (limit.window() == ProviderLimit.Window.SLIDING) {
      log(limit).addLast(new long[] {slot, weight});
      return;
    }
    long per = perMicros(limit);
    long k1 = Math.floorDiv(slot, per);
    long k2 = Math.floorDiv(slot + marginMicros(limit), per);
    windows(limit).merge(k1, weight, Long::sum);
    if (k2 != k1) {
      windows(limit).merge(k2, weight, Long::sum);
    }
  }

  /**
   * A slot that reserved {@code reserved} units carried an event of {@code actual} (less): lowers
   * the slot's record in this cost limit to {@code actual}. The record never drops below what was
   * sent, so every window still holds at least the cost the provider saw.
   */
  public void settle(ProviderLimit limit, long slot, long reserved, long actual) {
    if (actual >= reserved) {
      return;
    }
    if (isCoarse(limit)) {
      long k = Math.floorDiv(slot, subWindowMicros(limit));
      Long used = subs(limit).get(k);
      if (used != null && used >= reserved) {
        subs(limit).put(k, used + actual - reserved);
      }
      return;
    }
    if (limit.window() == ProviderLimit.Window.SLIDING) {
      for (long[] e : log(limit)) {
        if (e[0] == slot && e[1] == reserved) {
          e[1] = actual;
          return;
        }
      }
      return;
    }
    long per = perMicros(limit);
    long k1 = Math.floorDiv(slot, per);
    long k2 = Math.floorDiv(slot + marginMicros(limit), per);
    for (long k : k2 != k1 ? new long[] {k1, k2} : new long[] {k1}) {
      Long used = windows(limit).get(k);
      if (used != null && used >= reserved) {
        windows(limit).put(k, used + actual - reserved);
      }
    }
  }

  int liveLeases() {
    return leases.size();
  }

  /** The earliest expiry of a live lease, or {@code Long.MAX_VALUE} if none. */
  long earliestLeaseExpiry() {
    return leases.values().stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE);
  }

  void lease(String id, long expiryMicros) {
    leases.put(id, expiryMicros);
  }

  /** Ends a lease (its call came back, or its slot went unused); unknown ids are ignored. */
  public void release(String id) {
    leases.remove(id);
  }

  /** The units a sliding log holds in {@code (at - span, at]}, for tests and metrics. */
  long held(ProviderLimit limit, long at) {
    long held = 0;
    for (Iterator<long[]> it = log(limit).iterator(); it.hasNext(); ) {
      long[] e = it.next();
      if (e[0] > at - spanMicros(limit) && e[0] <= at) {
        held += e[1];
      }
    }
    return held;
  }

  static long perMicros(ProviderLimit limit) {
    return limit.per().toNanos() / 1000;
  }

  static long marginMicros(ProviderLimit limit) {
    return limit.margin().toNanos() / 1000;
  }

  /** A sliding window's span: per plus margin (see {@code ConfigDefaults.LIMIT_MARGIN}). */
  static long spanMicros(ProviderLimit limit) {
    return perMicros(limit) + marginMicros(limit);
  }

  private ArrayDeque<long[]> log(ProviderLimit limit) {
    return logs.computeIfAbsent(limit.id(), id -> new ArrayDeque<>());
  }

  private TreeMap<Long, Long> subs(ProviderLimit limit) {
    return subWindows.computeIfAbsent(limit.id(), id -> new TreeMap<>());
  }

  private TreeMap<Long, Long> windows(ProviderLimit limit) {
    return fixed.computeIfAbsent(limit.id(), id -> new TreeMap<>());
  }
}
