package io.sluice.dispatcher.app.hanging;

import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What the transaction coordinator says of one producer's current transaction.
 *
 * @param transactionalId the producer's transactional id
 * @param completing true while the coordinator still owes markers (ongoing, or prepared to
 *                   commit or abort); false once it has written the transaction complete
 * @param partitions the partitions of that transaction
 */
public record CoordinatorView(long producerId, String transactionalId, boolean completing,
    Set<TopicPartition> partitions) {

  /** True when the coordinator will still send {@code partition} a marker for this producer. */
  public boolean owesMarkerTo(TopicPartition partition) {
    return completing && partitions.contains(partition);
  }
}
