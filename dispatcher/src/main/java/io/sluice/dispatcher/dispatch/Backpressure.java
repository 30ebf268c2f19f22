package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.intake.OverflowPause;
import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Which partitions the consumer reads now: it pauses a partition while it holds more than its
 * share of unsettled records (the shares of one topic's partitions: ready's and ready.high's
 * each add up to the whole records limit), every partition while the bytes held are past
 * {@code dispatcher.bufferBytes} ({@link ReadBudget}), and a partition all of whose recent
 * arrivals overflowed ({@link OverflowPause}); it resumes each once drained. The consumer thread
 * owns it.
 */
final class Backpressure {
  private final Consumer<byte[], byte[]> consumer;
  private final ReadBudget budget;
  private final OverflowPause<TopicPartition> overflowPause;
  private final LongSupplier nanoTime;
  private final int resumeOverflowAt;
  /** Every partition paused: the bytes held are past {@code dispatcher.bufferBytes}. */
  private boolean bytesHeld;
  /** Partitions paused for holding more than their share of unsettled records. */
  private final Set<TopicPartition> recordsHeld = new HashSet<>();

  /**
   * @param resumeOverflowAt a partition paused for its overflows resumes once the lanes it
   *                         overflowed hold this many queued or fewer
   */
  Backpressure(Consumer<byte[], byte[]> consumer, ReadBudget budget,
      OverflowPause<TopicPartition> overflowPause, LongSupplier nanoTime, int resumeOverflowAt) {
    this.consumer = consumer;
    this.budget = budget;
    this.overflowPause = overflowPause;
    this.nanoTime = nanoTime;
    this.resumeOverflowAt = resumeOverflowAt;
  }

  /** An arrival of {@code tp} was queued. */
  void queued(TopicPartition tp) {
    overflowPause.queued(tp);
  }

  /** An arrival of {@code tp} overflowed the lane named {@code lane}. */
  void overflowed(TopicPartition tp, String lane) {
    overflowPause.overflowed(tp, lane, nanoTime.getAsLong());
  }

  /**
   * Pauses and resumes the owned partitions as their budgets say.
   *
   * @param queuedOf      events queued in a lane, by its name
   * @param endpointLanes live lanes toward tenants' endpoints (each widens the records budget)
   */
  void apply(OwnedPartitions owned, ToIntFunction<String> queuedOf, int endpointLanes) {
    Set<TopicPartition> assigned = owned.partitions();
    bytesHeld = budget.pauseForBytes(bytesHeld);
    recordsHeld.retainAll(assigned);
    Map<String, Integer> perTopic = new HashMap<>();
    assigned.forEach(tp -> perTopic.merge(tp.topic(), 1, Integer::sum));
    for (TopicPartition tp : assigned) {
      // A share of its own topic's: ready.high's partitions do not shrink ready's shares, and a
      // partition of ready paused behind a backlog never pauses one of ready.high (issue 36).
      if (budget.pausePartition(recordsHeld.contains(tp), owned.get(tp).offsets().waiting(),
          endpointLanes, perTopic.get(tp.topic()))) {
        recordsHeld.add(tp);
      } else {
        recordsHeld.remove(tp);
      }
    }
    overflowPause.retainOnly(assigned);
    Set<TopicPartition> want = bytesHeld ? new HashSet<>(assigned)
        : overflowPause.paused(nanoTime.getAsLong(), queuedOf, resumeOverflowAt);
    want.addAll(recordsHeld);
    want.retainAll(assigned);
    Set<TopicPartition> paused = consumer.paused();
    if (!paused.equals(want)) {
      Set<TopicPartition> resume = new HashSet<>(paused);
      resume.removeAll(want);
      consumer.resume(resume);
      consumer.pause(want);
    }
  }
}
