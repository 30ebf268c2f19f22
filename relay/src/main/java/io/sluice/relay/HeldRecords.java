package io.sluice.relay;

import io.sluice.schemas.offsets.OffsetLedger;
import io.sluice.schemas.topic.DelayLadder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's bookkeeping, without its consumer, producer or transactions: the partitions it owns
 * with their {@link OffsetLedger}s, the records it holds by when they fall due, and what waits on a
 * partition rather than on the clock (after a failed round, or until its ledger can record a
 * release). Single-threaded: the relay's thread owns it. {@link Relay} is the loop that reads into
 * it, sends what it gives out, and commits.
 */
final class HeldRecords {
  private static final Logger LOG = LoggerFactory.getLogger(HeldRecords.class);

  /** A record held, and when it may leave its step topic ({@link Long#MIN_VALUE}: at once, malformed). */
  record Waiting(TopicPartition partition, ConsumerRecord<byte[], byte[]> record, HeldRecord what, long due) {}

  /** One owned partition: its ledger, and what waits on it rather than on the clock. */
  private static final class Partition {
    final OffsetLedger ledger;
    /** Due, but kept back: after a failed round until {@link #retryAt}, or until the ledger can record them. */
    final List<Waiting> setAside = new ArrayList<>();
    long retryAt = Long.MIN_VALUE;
    /** Paused for holding {@link Relay#READ_AHEAD} records. */
    boolean full;

    Partition(OffsetLedger ledger) {
      this.ledger = ledger;
    }
  }

  private final DelayLadder ladder;
  private final Map<String, Duration> stepOfTopic;
  private final Set<String> returnTopics;
  private final int readAhead;
  /** The partitions owned whose commit is known. */
  private final Map<TopicPartition, Partition> held = new HashMap<>();
  /** Every record held and free to go, earliest due first. */
  private final PriorityQueue<Waiting> byDue = new PriorityQueue<>(
      Comparator.comparingLong(Waiting::due).thenComparingLong(w -> w.record().offset()));

  /**
   * @param stepOfTopic  each delay topic's step
   * @param returnTopics the topics a record may be sent back to
   * @param readAhead    records of a partition held at most before it is paused
   */
  HeldRecords(DelayLadder ladder, Map<String, Duration> stepOfTopic, Set<String> returnTopics, int readAhead) {
    this.ladder = ladder;
    this.stepOfTopic = Map.copyOf(stepOfTopic);
    this.returnTopics = Set.copyOf(returnTopics);
    this.readAhead = readAhead;
  }

  /** True when {@code tp} is owned and its commit known. */
  boolean owns(TopicPartition tp) {
    return held.containsKey(tp);
  }

  /** {@code tp} is owned from now on, its commit read into {@code ledger}. */
  void own(TopicPartition tp, OffsetLedger ledger) {
    held.put(tp, new Partition(ledger));
  }

  /** The ledger of {@code tp}, which must be owned. */
  OffsetLedger ledger(TopicPartition tp) {
    return held.get(tp).ledger;
  }

  /** Takes a partition's records into memory (skipping what an earlier owner released). */
  void hold(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> batch) {
    Partition partition = held.get(tp);
    Duration step = stepOfTopic.get(tp.topic());
    for (ConsumerRecord<byte[], byte[]> record : batch) {
      if (partition.ledger.readBefore(record.offset())) {
        // The position went back (a reset after an out-of-range fetch, say): held or gone already,
        // so skipped. This ended the relay's thread before (the ledger refuses offsets out of order).
        LOG.warn("relay: {}@{} read again; skipped, it was taken at its first read", tp, record.offset());
        continue;
      }
      if (!partition.ledger.read(record.offset())) {
        continue; // released by an earlier owner, in a committed transaction
      }
      HeldRecord what = HeldRecord.read(record.headers(), record.value(), returnTopics);
      long due = what.valid() ? ladder.releaseAt(record.timestamp(), what.notBefore(), step) : Long.MIN_VALUE;
      byDue.add(new Waiting(tp, record, what, due));
    }
  }

  /**
   * The next record due at {@code now}, earliest first, recorded released in its ledger (in the
   * open transaction); null when none is. A record of a partition waiting after a failed round, or
   * one its ledger cannot record yet, is set aside until then.
   */
  Waiting nextDue(long now) {
    while (!byDue.isEmpty() && byDue.peek().due() <= now) {
      Waiting w = byDue.poll();
      Partition partition = held.get(w.partition());
      if (partition.retryAt > now || !partition.ledger.maySettle(w.record().offset())) {
        partition.setAside.add(w);
        continue;
      }
      partition.ledger.settle(w.record().offset());
      return w;
    }
    return null;
  }

  /** Partitions whose retry wait is over: what they set aside may go again. */
  void endHolds(long now) {
    held.values().forEach(p -> {
      if (p.retryAt != Long.MIN_VALUE && p.retryAt <= now) {
        p.retryAt = Long.MIN_VALUE;
        putBack(p);
      }
    });
  }

  /**
   * The transaction releasing {@code round} committed: their ledgers forget what is below their
   * commits, and what their partitions set aside may go (the ledgers may record them now).
   */
  void committed(List<Waiting> round) {
    round.forEach(w -> held.get(w.partition()).ledger.forgetCommitted());
    round.stream().map(Waiting::partition).distinct().forEach(tp -> putBack(held.get(tp)));
  }

  /**
   * {@code w} was not released after all (its round aborted): held again if its partition is still
   * ours, set aside until {@code retryAt} or, with {@link Long#MIN_VALUE}, free to go at once.
   */
  void unrelease(Waiting w, long retryAt) {
    Partition partition = held.get(w.partition());
    if (partition == null) {
      return; // no longer ours: its new owner relays it from the last commit
    }
    partition.ledger.unsettle(w.record().offset());
    if (retryAt != Long.MIN_VALUE) {
      partition.retryAt = retryAt;
      partition.setAside.add(w);
    } else {
      byDue.add(w);
    }
  }

  /**
   * Pauses a partition holding {@code readAhead} records, so memory stays bounded; resumes it when
   * half have gone (not at every record, which would fetch a record at a time). Fills
   * {@code pause} and {@code resume} with the partitions whose state changed.
   */
  void pauseOrResume(List<TopicPartition> pause, List<TopicPartition> resume) {
    held.forEach((tp, p) -> {
      int size = p.ledger.size();
      if (!p.full && size >= readAhead) {
        p.full = true;
        pause.add(tp);
      } else if (p.full && size <= readAhead / 2) {
        p.full = false;
        resume.add(tp);
      }
    });
  }

  /** How long from {@code now} until a record falls due or a retry wait ends; at most {@code max}. */
  long wait(long now, long max) {
    long wait = max;
    if (!byDue.isEmpty()) {
      long due = byDue.peek().due();
      wait = due <= now ? 0 : Math.min(wait, due - now);
    }
    for (Partition p : held.values()) {
      if (p.retryAt != Long.MIN_VALUE) {
        wait = Math.min(wait, Math.max(0, p.retryAt - now));
      }
    }
    return wait;
  }

  /** {@code partitions} are no longer ours: all they held is dropped. */
  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(held::remove);
    byDue.removeIf(w -> partitions.contains(w.partition()));
  }

  private void putBack(Partition p) {
    byDue.addAll(p.setAside);
    p.setAside.clear();
  }
}
