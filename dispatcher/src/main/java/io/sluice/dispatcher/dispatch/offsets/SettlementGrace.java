package io.sluice.dispatcher.dispatch.offsets;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The records a partition's new owner read again and found "delivered, not settled" in the
 * {@link DeliveredLog}: the previous owner called the provider and sent the outcome, and the log
 * does not say Kafka acknowledged it. Each waits here, for a grace, before the new owner writes
 * the outcome itself.
 *
 * <h2>Why wait</h2>
 * "Not settled" in the log does not mean "not written". The previous owner marks a record settled
 * only once Kafka acknowledges its outcome, and its producer keeps sending that outcome for its
 * whole delivery timeout, across a broker restart. A partition moves in that time (the group
 * fences its members when the broker comes back): the new owner that wrote the outcome at once
 * made two outcome records of one call when the old one's acknowledgement came in after all (the
 * chaos run: 5 to 14 of about 6,000 events per run, with 5 broker restarts). So the new owner
 * reads the log again, every {@code recheckNanos}, and:
 * <ul>
 *   <li>the log says settled (the old owner's outcome was acknowledged): the record is settled
 *       without a write, one outcome;</li>
 *   <li>{@code graceNanos} have passed since the record was held and the log still does not say
 *       so: the old owner's producer has given up on it, or the old owner is gone; the new owner
 *       writes the outcome. An event is never left without one.</li>
 * </ul>
 * The grace is the old owner's producer's delivery timeout plus the time its "settled" takes to
 * reach the log; it is counted on this process's clock from the moment the record was held, which
 * is after the old owner sent its outcome (it logged the call delivered after sending it, and this
 * owner read the log after that), so no clock is compared across machines.
 *
 * <h2>What it costs</h2>
 * Only the held record waits: the partition is read and called on, its commit stays at the held
 * record, with the offsets settled beyond it in the commit's metadata. An owner that died with its
 * outcome unacknowledged (a SIGKILL in the ~100 ms between the acknowledgement and the log's
 * next write) makes its successor wait the whole grace for those records' outcomes.
 *
 * <h2>Not covered</h2>
 * The previous owner's outcome written by the broker while its writer was killed (the
 * acknowledgement, and so the log's "settled", never sent): the grace runs out and a second
 * outcome is written. And an old owner that, not yet knowing it lost the partition, sends its
 * outcome anew after a failed write and has it land after the grace. Both copies name the same
 * ready record ({@code sluice-settles}); readers of {@code sluice.outcomes} count each name once.
 *
 * <p>Pure: no I/O, time passed in (monotonic nanoseconds). The consumer thread owns it.
 *
 * @param <E> what is held for a record (the dispatcher's entry)
 */
public final class SettlementGrace<E> {
  /** Offsets {@code from} to {@code to} (inclusive) of one partition, to read again from the log. */
  public record Range(long from, long to) {}

  private record Held<E>(E item, long sinceNanos) {}

  private final long graceNanos;
  private final long recheckNanos;
  /** Per partition, by offset: what waits, and since when. */
  private final Map<TopicPartition, TreeMap<Long, Held<E>>> held = new HashMap<>();
  /** Per partition: when its log was last asked again. */
  private final Map<TopicPartition, Long> askedAt = new HashMap<>();
  /** Partitions whose log is being read again: one read at a time each. */
  private final Map<TopicPartition, Boolean> asking = new HashMap<>();

  /**
   * @param graceNanos   how long a record waits for its previous owner's settlement
   * @param recheckNanos how often a partition's log is read again meanwhile
   */
  public SettlementGrace(long graceNanos, long recheckNanos) {
    if (graceNanos < 0 || recheckNanos < 1) {
      throw new IllegalArgumentException("a grace of " + graceNanos + " ns, rechecked every "
          + recheckNanos + " ns");
    }
    this.graceNanos = graceNanos;
    this.recheckNanos = recheckNanos;
  }

  /**
   * The record at {@code offset} of {@code tp} waits, from {@code nowNanos}, for its previous
   * owner's settlement. An assignment reads a record once (its offsets refuse a second read); a
   * later assignment's hold of the same offset replaces an earlier one's.
   */
  public void hold(TopicPartition tp, long offset, E item, long nowNanos) {
    held.computeIfAbsent(tp, k -> new TreeMap<>()).put(offset, new Held<>(item, nowNanos));
  }

  /**
   * The ranges to read again from the log now: each partition holding records, not being read
   * already, and not read within {@code recheckNanos}; each is marked as being read until
   * {@link #answered}.
   */
  public Map<TopicPartition, Range> toRead(long nowNanos) {
    Map<TopicPartition, Range> ranges = new LinkedHashMap<>();
    held.forEach((tp, records) -> {
      Long last = askedAt.get(tp);
      if (records.isEmpty() || asking.containsKey(tp)
          || (last != null && nowNanos - last < recheckNanos)) {
        return;
      }
      asking.put(tp, true);
      askedAt.put(tp, nowNanos);
      ranges.put(tp, new Range(records.firstKey(), records.lastKey()));
    });
    return ranges;
  }

  /**
   * The log of {@code tp} was read again: of its held records, those it says are settled
   * ({@code settled}: offsets) leave, to be settled without a write. A read that failed answers
   * none.
   */
  public List<E> answered(TopicPartition tp, Set<Long> settled) {
    asking.remove(tp);
    TreeMap<Long, Held<E>> records = held.get(tp);
    List<E> done = new ArrayList<>();
    if (records == null) {
      return done;
    }
    for (Long offset : settled) {
      Held<E> h = records.remove(offset);
      if (h != null) {
        done.add(h.item());
      }
    }
    return done;
  }

  /**
   * The records whose grace is over at {@code nowNanos}: they leave, and the new owner writes
   * their outcomes.
   */
  public List<E> due(long nowNanos) {
    List<E> due = new ArrayList<>();
    for (TreeMap<Long, Held<E>> records : held.values()) {
      for (Iterator<Held<E>> it = records.values().iterator(); it.hasNext(); ) {
        Held<E> h = it.next();
        if (nowNanos - h.sinceNanos() >= graceNanos) {
          due.add(h.item());
          it.remove();
        }
      }
    }
    return due;
  }

  /** {@code partitions} moved: what they held leaves (their next owner reads it again). */
  public List<E> forget(Collection<TopicPartition> partitions) {
    List<E> gone = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      TreeMap<Long, Held<E>> records = held.remove(tp);
      if (records != null) {
        records.values().forEach(h -> gone.add(h.item()));
      }
      askedAt.remove(tp);
      asking.remove(tp);
    }
    return gone;
  }

  /** How many records wait now. */
  public int size() {
    return held.values().stream().mapToInt(Map::size).sum();
  }
}
