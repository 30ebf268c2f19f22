package io.sluice.app.hanging;

import org.apache.kafka.common.TopicPartition;

/**
 * A transaction a partition's leader holds open: its records from {@code startOffset} on are
 * invisible to {@code read_committed} consumers until a commit or abort marker for
 * {@code producerId} reaches the partition. The epochs are what an abort marker must carry.
 */
public record OpenTransaction(TopicPartition partition, long producerId, short producerEpoch,
    int coordinatorEpoch, long startOffset) {

  @Override
  public String toString() {
    return partition + " from offset " + startOffset + " (producer " + producerId + ", epoch "
        + producerEpoch + ")";
  }
}
