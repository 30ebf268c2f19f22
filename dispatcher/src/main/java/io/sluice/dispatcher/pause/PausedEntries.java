package io.sluice.dispatcher.pause;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Where a dispatcher holds the events a pause stops, until the pause is lifted or their deadline
 * passes. Pure: no I/O, time passed in; not thread-safe (the consumer thread owns it).
 *
 * <p><b>Bounded.</b> At most {@code capacityPerProvider} entries per provider (the dispatcher
 * gives it {@code dispatcher.bufferSize}: while a provider is paused its lane's buffer is empty,
 * so a pause holds no more in memory than the provider's buffer would). {@link #hold} refuses the
 * next one, which the dispatcher sends round the ladder's longest step instead, as it does a
 * buffer's overflow; it comes back, is held or goes round again, until the pause ends or its
 * deadline does.
 *
 * <p><b>Order.</b> FIFO per provider: on resume the entries go back to their lanes in the order
 * they were read, and the fair queue orders them among tenants as usual.
 *
 * <p><b>Cost.</b> {@link #sort} looks at every held entry, but only when the rules changed or
 * {@link #SWEEP_EVERY} has passed since its last look (deadlines are checked that often): a
 * consumer loop calling it every 100 ms with 10,000 entries held reads them once a second.
 *
 * @param <T> what is held (the dispatcher's entries)
 */
public final class PausedEntries<T> {
  /** How often held entries' deadlines are checked when the rules do not change. */
  public static final Duration SWEEP_EVERY = Duration.ofSeconds(1);

  /** What {@link #sort} took out: entries to queue again, and entries whose deadline passed. */
  public record Sorted<T>(List<T> resumed, List<T> expired) {
    public boolean isEmpty() {
      return resumed.isEmpty() && expired.isEmpty();
    }
  }

  private final int capacityPerProvider;
  private final Function<T, String> provider;
  private final Function<T, String> tenant;
  private final Function<T, Instant> deadline;
  private final Map<String, ArrayDeque<T>> held = new TreeMap<>();
  private int size;
  private PauseRules sortedBy = PauseRules.NONE;
  private Instant sortedAt = Instant.MIN;

  /**
   * @param deadline an entry's deadline, or null when it has none
   */
  public PausedEntries(int capacityPerProvider, Function<T, String> provider,
      Function<T, String> tenant, Function<T, Instant> deadline) {
    if (capacityPerProvider < 1) {
      throw new IllegalArgumentException("capacityPerProvider must be at least 1: "
          + capacityPerProvider);
    }
    this.capacityPerProvider = capacityPerProvider;
    this.provider = provider;
    this.tenant = tenant;
    this.deadline = deadline;
  }

  /** Holds {@code entry}; false (and not held) when its provider already holds its capacity. */
  public boolean hold(T entry) {
    ArrayDeque<T> queue = held.computeIfAbsent(provider.apply(entry), p -> new ArrayDeque<>());
    if (queue.size() >= capacityPerProvider) {
      return false;
    }
    queue.addLast(entry);
    size++;
    return true;
  }

  /**
   * Takes out what {@code rules} no longer hold (to be queued again) and what is past its deadline
   * (to be dead as expired). Looks only when the rules differ from the last look's, or
   * {@link #SWEEP_EVERY} has passed since it; otherwise returns nothing.
   */
  public Sorted<T> sort(PauseRules rules, Instant now) {
    if (size == 0 || (rules.equals(sortedBy) && now.isBefore(sortedAt.plus(SWEEP_EVERY)))) {
      sortedBy = rules;
      return new Sorted<>(List.of(), List.of());
    }
    sortedBy = rules;
    sortedAt = now;
    List<T> resumed = new ArrayList<>();
    List<T> expired = new ArrayList<>();
    for (ArrayDeque<T> queue : held.values()) {
      for (Iterator<T> it = queue.iterator(); it.hasNext(); ) {
        T e = it.next();
        PauseRules.Decision d = rules.decide(provider.apply(e), tenant.apply(e), deadline.apply(e), now);
        if (d == PauseRules.Decision.HOLD) {
          continue;
        }
        (d == PauseRules.Decision.CALL ? resumed : expired).add(e);
        it.remove();
        size--;
      }
    }
    held.values().removeIf(ArrayDeque::isEmpty);
    return new Sorted<>(resumed, expired);
  }

  /** Takes out every held entry that matches (a revoked partition's): its next owner reads it again. */
  public List<T> removeIf(Predicate<? super T> which) {
    List<T> removed = new ArrayList<>();
    for (ArrayDeque<T> queue : held.values()) {
      for (Iterator<T> it = queue.iterator(); it.hasNext(); ) {
        T e = it.next();
        if (which.test(e)) {
          removed.add(e);
          it.remove();
        }
      }
    }
    size -= removed.size();
    held.values().removeIf(ArrayDeque::isEmpty);
    return removed;
  }

  /** Entries held per provider (providers holding none left out). */
  public Map<String, Integer> heldByProvider() {
    Map<String, Integer> counts = new TreeMap<>();
    held.forEach((p, q) -> counts.put(p, q.size()));
    return counts;
  }

  public int size() {
    return size;
  }
}
