package io.sluice.dispatcher.dispatch.offsets;

import io.sluice.schemas.offsets.SettledOffsets;
import io.sluice.schemas.offsets.SettledOffsetsCodec;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a dispatcher takes over with the partitions it is assigned, so that it calls again nothing
 * that was settled or delivered: the last commit, the offsets settled beyond it, and the calls
 * delivered beyond it. Used on the consumer thread, in the rebalance listener.
 *
 * <p>Settled beyond the commit: what the commit's metadata says ({@link SettledOffsetsCodec}),
 * together with what this process settled itself in a partition it lost and now gets back
 * ({@link #lost}): after a broker restart the group fences its members, their last commits fail,
 * and without this every record settled since the last commit that went through was called again
 * (the chaos run: 4.95% duplicates). Delivered beyond the commit: the {@link DeliveredLog}.
 *
 * <p>A delivered log's entry at or beyond the partition's end offset (its last stable offset, as
 * this read_committed consumer sees it) cannot be of a record the partition holds: a log truncated
 * by an unclean leader election, a topic created again, another cluster. Such entries are
 * dropped; the records later written at those offsets are called.
 *
 * <p>Every read is best effort and bounded: a failed or late answer only means the records are
 * called again, as they were before commits carried metadata and before the log. An end offset
 * that cannot be read means the delivered log is not trusted at all.
 */
public final class PartitionTakeover {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionTakeover.class);

  /**
   * What one partition's new assignment starts from.
   *
   * @param committed the last committed offset, -1 if none
   * @param settled   offsets settled beyond it, not to be called again
   * @param delivered calls delivered beyond it, by offset: their outcomes are written, not called
   */
  public record Inherited(long committed, SettledOffsets settled, Map<Long, DeliveredLog.Delivered> delivered) {}

  private final Consumer<byte[], byte[]> consumer;
  private final DeliveredLog deliveredLog;
  private final Duration committedTimeout;
  private final Duration deliveredLogTimeout;
  private final LongSupplier nanoTime;
  /** Offsets settled in partitions this process lost, until it gets them back (replaced on each loss). */
  private final Map<TopicPartition, SettledOffsets> settledWhenLost = new HashMap<>();

  /**
   * @param committedTimeout    longest wait for the partitions' last commits
   * @param deliveredLogTimeout longest wait for the delivered log, for all partitions together
   * @param nanoTime            monotonic clock for that wait ({@code System::nanoTime})
   */
  public PartitionTakeover(Consumer<byte[], byte[]> consumer, DeliveredLog deliveredLog,
      Duration committedTimeout, Duration deliveredLogTimeout, LongSupplier nanoTime) {
    this.consumer = consumer;
    this.deliveredLog = deliveredLog;
    this.committedTimeout = committedTimeout;
    this.deliveredLogTimeout = deliveredLogTimeout;
    this.nanoTime = nanoTime;
  }

  /** This process no longer owns {@code tp}, in which it had settled {@code settled}. */
  public void lost(TopicPartition tp, SettledOffsets settled) {
    settledWhenLost.put(tp, settled);
  }

  /** What each of {@code partitions} starts from; every partition has an answer. */
  public Map<TopicPartition, Inherited> takeOver(Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> committed = lastCommits(partitions);
    Map<TopicPartition, Map<Long, DeliveredLog.Delivered>> delivered =
        withinEnds(deliveredSince(partitions, committed));
    Map<TopicPartition, Inherited> inherited = new HashMap<>();
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata last = committed.get(tp);
      SettledOffsets settled = last == null ? SettledOffsets.NONE
          : SettledOffsetsCodec.decodeOrNone(last.offset(), last.metadata());
      // Back after losing it without a commit (a fencing, a broker restart): what this process
      // settled still holds, whatever the commit says.
      SettledOffsets ours = settledWhenLost.remove(tp);
      if (ours != null) {
        settled = settled.union(ours.from(last == null ? 0L : last.offset()));
      }
      if (settled.intervals() > 0) {
        LOG.info("dispatcher: {} from offset {}; the last owner settled {} records beyond it "
            + "(up to {}), which are not called again", tp, last == null ? 0 : last.offset(),
            settled.count(), settled.end());
      }
      Map<Long, DeliveredLog.Delivered> before = delivered.getOrDefault(tp, Map.of());
      if (!before.isEmpty()) {
        long settledThere = before.values().stream().filter(DeliveredLog.Delivered::settled).count();
        LOG.info("dispatcher: {}: beyond offset {}, the delivered log holds {} records settled (skipped) "
            + "and {} calls delivered (their outcomes are written, the provider is not called again)",
            tp, last == null ? 0 : last.offset(), settledThere, before.size() - settledThere);
      }
      inherited.put(tp, new Inherited(last == null ? -1L : last.offset(), settled, before));
    }
    return inherited;
  }

  /**
   * The calls delivered beyond each partition's last commit, from the {@link DeliveredLog}:
   * asked for every partition at once, waited for at most {@code deliveredLogTimeout} in all. A
   * partition whose answer fails or comes late has none (its calls are made again).
   */
  private Map<TopicPartition, Map<Long, DeliveredLog.Delivered>> deliveredSince(
      Collection<TopicPartition> partitions, Map<TopicPartition, OffsetAndMetadata> committed) {
    Map<TopicPartition, CompletableFuture<Map<Long, DeliveredLog.Delivered>>> asked = new HashMap<>();
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata last = committed.get(tp);
      try {
        asked.put(tp, deliveredLog.since(tp, last == null ? 0 : last.offset()).toCompletableFuture());
      } catch (RuntimeException e) {
        LOG.debug("dispatcher: delivered log of {} not read ({})", tp, e.toString());
      }
    }
    long deadline = nanoTime.getAsLong() + deliveredLogTimeout.toNanos();
    Map<TopicPartition, Map<Long, DeliveredLog.Delivered>> delivered = new HashMap<>();
    asked.forEach((tp, f) -> {
      try {
        delivered.put(tp, f.get(Math.max(0, deadline - nanoTime.getAsLong()), TimeUnit.NANOSECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        LOG.warn("dispatcher: could not read the delivered log of {} ({}); calls delivered beyond its "
            + "commit are made again", tp, e.toString());
      }
    });
    return delivered;
  }

  /**
   * Of each partition's delivered calls, those below its end offset; none for a partition whose
   * end offset is not known (read once, for all partitions, after the log was read: an end read
   * earlier could only be lower).
   */
  private Map<TopicPartition, Map<Long, DeliveredLog.Delivered>> withinEnds(
      Map<TopicPartition, Map<Long, DeliveredLog.Delivered>> delivered) {
    delivered.values().removeIf(Map::isEmpty);
    if (delivered.isEmpty()) {
      return delivered;
    }
    Map<TopicPartition, Long> ends;
    try {
      ends = consumer.endOffsets(delivered.keySet(), committedTimeout);
    } catch (WakeupException e) {
      throw e;
    } catch (RuntimeException e) {
      LOG.warn("dispatcher: could not read the end offsets of {} ({}); the delivered log is not "
          + "trusted, calls delivered beyond the commit are made again", delivered.keySet(), e.toString());
      return Map.of();
    }
    Map<TopicPartition, Map<Long, DeliveredLog.Delivered>> within = new HashMap<>();
    delivered.forEach((tp, calls) -> {
      Long end = ends == null ? null : ends.get(tp);
      Map<Long, DeliveredLog.Delivered> kept = new HashMap<>();
      calls.forEach((offset, d) -> {
        if (end != null && offset < end) {
          kept.put(offset, d);
        }
      });
      if (kept.size() < calls.size()) {
        LOG.warn("dispatcher: the delivered log of {} names {} offsets at or beyond its end ({}); "
            + "they are not of this partition's records and are ignored", tp, calls.size() - kept.size(), end);
      }
      within.put(tp, kept);
    });
    return within;
  }

  /**
   * The partitions' last commits, with the metadata saying what was settled beyond them. Read
   * before the first record of the partition is fetched. If the read fails, nothing is skipped:
   * the records are called again, as they were before commits carried metadata.
   */
  private Map<TopicPartition, OffsetAndMetadata> lastCommits(Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return Map.of();
    }
    try {
      Map<TopicPartition, OffsetAndMetadata> committed =
          consumer.committed(Set.copyOf(partitions), committedTimeout);
      return committed == null ? Map.of() : committed;
    } catch (WakeupException e) {
      throw e;
    } catch (RuntimeException e) {
      LOG.warn("dispatcher: could not read the last commits of {} ({}); records settled beyond "
          + "them are called again", partitions, e.toString());
      return Map.of();
    }
  }
}
