package io.sluice.dispatcher.dispatch.offsets;

import io.sluice.dispatcher.dispatch.DispatchEntry;
import io.sluice.schemas.offsets.OffsetLedger;
import io.sluice.schemas.offsets.Overflow;
import io.sluice.schemas.offsets.SettledOffsets;
import io.sluice.schemas.offsets.SettledOffsetsCodec;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions of {@code sluice.ready} a dispatcher owns now, each with its assignment: which
 * one it is (a generation, new at every assignment), its offsets, the calls delivered beyond its
 * commit before it was assigned, and its last commit known to have gone through. No I/O: the
 * dispatcher reads, commits and rebalances, and keeps the books here.
 *
 * <p><b>Generations.</b> A settlement belongs to the assignment that read its record. A partition
 * revoked and assigned again starts from its new owner's commit, and a call of the old assignment
 * that settles late must not move the new one's offsets; so a settlement counts only if its
 * generation is the partition's current one ({@link #isCurrent}).
 *
 * <p>Thread-safety: the consumer thread does everything but {@link #isCurrent} and {@link #count},
 * which the settlement writer's threads and the gauges call.
 */
public final class OwnedPartitions {
  /**
   * One assignment of a partition: which it is, its offsets, and the calls delivered beyond its
   * commit before it was assigned (offset to delivery; emptied as they are read).
   */
  /**
   * What the dispatcher does when the settled offsets would not fit the commit's metadata: keep
   * the longest prefix that fits (the next owner calls the rest again). A settlement is never held
   * back for the metadata's sake.
   */
  public static final Overflow LEDGER_OVERFLOW = Overflow.truncate();
  /** The dispatcher's commit metadata format, the one it has always written (see SettledOffsetsCodec). */
  public static final SettledOffsetsCodec.Format METADATA_FORMAT = SettledOffsetsCodec.Format.ZLIB_V1;

  /**
   * One partition as this instance reads it, from its assignment until it is revoked.
   *
   * @param settlements the settlements its records named lately: a second copy of one is not
   *                    called (copies before the assignment are not known: a partition that
   *                    moves between two copies' reads has both called)
   */
  public record Assignment(long generation, OffsetLedger offsets,
      Map<Long, DeliveredLog.Delivered> deliveredBefore, RecentSettlements settlements) {
    public Assignment(long generation, OffsetLedger offsets,
        Map<Long, DeliveredLog.Delivered> deliveredBefore) {
      this(generation, offsets, deliveredBefore, new RecentSettlements(RecentSettlements.CAPACITY));
    }
  }

  private final Map<TopicPartition, Assignment> assignments = new HashMap<>();
  /** Each owned partition's generation, for the writer's threads. */
  private final Map<TopicPartition, Long> generations = new ConcurrentHashMap<>();
  /** Each owned partition's last commit known to have gone through: the log keeps nothing below. */
  private final Map<TopicPartition, Long> confirmedCommits = new HashMap<>();
  private long generation;
  private volatile int count;

  /** {@code tp} is ours from now on, starting from what its previous owner left ({@code from}). */
  public void assign(TopicPartition tp, PartitionTakeover.Inherited from) {
    confirmedCommits.put(tp, from.committed());
    assignments.put(tp, new Assignment(++generation, newLedger(from.settled()),
        new HashMap<>(from.delivered())));
    generations.put(tp, generation);
    count = assignments.size();
  }

  /**
   * {@code partitions} are no longer ours; each one's settled offsets go to {@code settledOf}
   * (an owner that gets it back without a commit in between starts from them).
   */
  public void forget(Collection<TopicPartition> partitions,
      BiConsumer<TopicPartition, SettledOffsets> settledOf) {
    for (TopicPartition tp : partitions) {
      Assignment a = assignments.remove(tp);
      if (a != null) {
        settledOf.accept(tp, a.offsets().settled());
      }
      confirmedCommits.remove(tp);
      generations.remove(tp);
    }
    count = assignments.size();
  }

  /** The current assignment of {@code tp}, or null when it is not ours. */
  public Assignment get(TopicPartition tp) {
    return assignments.get(tp);
  }

  /** Whether {@code entry} was read by its partition's current assignment. Any thread. */
  public boolean isCurrent(DispatchEntry entry) {
    return Long.valueOf(entry.generation()).equals(generations.get(entry.partition()));
  }

  /**
   * Settles {@code entry}'s offset, if its assignment is still the current one. True if it
   * counted: there is something new to commit.
   */
  public boolean settle(DispatchEntry entry) {
    Assignment a = assignments.get(entry.partition());
    if (a == null || a.generation() != entry.generation()) {
      return false;
    }
    a.offsets().settle(entry.offset());
    a.offsets().forgetCommitted(); // no transaction to abort: what is below the commit is gone
    return true;
  }

  /**
   * The ledger of a partition that starts from {@code inherited} (its commit is not needed: nothing
   * is committable before the first record is read).
   */
  public static OffsetLedger newLedger(SettledOffsets inherited) {
    return new OffsetLedger(-1, inherited, LEDGER_OVERFLOW);
  }

  /** The partitions owned now (a copy). */
  public Set<TopicPartition> partitions() {
    return Set.copyOf(assignments.keySet());
  }

  /** How many partitions are owned now. Any thread. */
  public int count() {
    return count;
  }

  /** How many partitions of {@code topic} are owned now. Any thread. */
  public int count(String topic) {
    int n = 0;
    for (TopicPartition tp : generations.keySet()) {
      if (tp.topic().equals(topic)) {
        n++;
      }
    }
    return n;
  }

  /**
   * What to commit for those of {@code which} that are owned and have settled something new: the
   * offset of the first unsettled record, with the offsets settled beyond it in at most
   * {@code metadataBudget} bytes of metadata ({@link SettledOffsetsCodec}).
   */
  public Map<TopicPartition, OffsetAndMetadata> committable(Collection<TopicPartition> which,
      int metadataBudget) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition tp : which) {
      Assignment a = assignments.get(tp);
      if (a != null) {
        OptionalLong next = a.offsets().committable();
        if (next.isPresent()) {
          offsets.put(tp, new OffsetAndMetadata(next.getAsLong(),
              a.offsets().metadata(METADATA_FORMAT, metadataBudget)));
        }
      }
    }
    return offsets;
  }

  /** These commits went through: for the partitions still owned, the latest one is confirmed. */
  void confirmed(Map<TopicPartition, OffsetAndMetadata> offsets) {
    offsets.forEach((tp, o) -> {
      if (assignments.containsKey(tp)) {
        confirmedCommits.merge(tp, o.offset(), Math::max);
      }
    });
  }

  /** The last commit of {@code tp} known to have gone through, -1 if none or not owned. */
  public long confirmedCommit(TopicPartition tp) {
    return confirmedCommits.getOrDefault(tp, -1L);
  }
}
