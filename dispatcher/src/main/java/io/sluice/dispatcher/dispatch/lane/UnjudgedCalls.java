package io.sluice.dispatcher.dispatch.lane;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A lane's calls per partition that have not yet been handed to the result handler. A call
 * counts from its start until its settlement has begun, so a revoked partition can wait for its
 * calls to be judged before its offsets are committed and it is handed over.
 *
 * <p>Invariant: a partition is present only with a count of at least one.
 *
 * <p>Not thread-safe: its lane calls it under the lane's monitor, and waits on that monitor for
 * {@link #judged}.
 */
final class UnjudgedCalls {
  private final Map<TopicPartition, Integer> calls = new HashMap<>();

  /** A call of {@code partition} started. */
  void started(TopicPartition partition) {
    calls.merge(partition, 1, Integer::sum);
  }

  /** A call of {@code partition} was handed to the result handler. */
  void judged(TopicPartition partition) {
    calls.computeIfPresent(partition, (tp, n) -> n == 1 ? null : n - 1);
  }

  /** Some call of one of {@code partitions} is not judged yet. */
  boolean anyOf(Collection<TopicPartition> partitions) {
    return partitions.stream().anyMatch(calls::containsKey);
  }
}
