package io.sluice.app.hanging;

import java.util.Set;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;

/**
 * What the transaction coordinator says of one producer's current (latest) transaction, as it
 * says it: its state is kept, not folded into "owes a marker or not", because a committed
 * transaction and an aborted one call for different ends ({@link HangingTransactionJudge}).
 *
 * @param producerEpoch   the producer's epoch at the coordinator now
 * @param transactionalId the producer's transactional id
 * @param state           the coordinator's state of that transaction; {@link
 *                        TransactionState#UNKNOWN} when it sent one this client does not know
 * @param partitions      the partitions of that transaction (empty once it is complete)
 * @param startMillis     when that transaction started, -1 when none is reported; a re-look
 *                        that sees another start sees another transaction
 */
public record CoordinatorView(long producerId, short producerEpoch, String transactionalId,
    TransactionState state, Set<TopicPartition> partitions, long startMillis) {
  /** The states in which the coordinator still sends its transaction's partitions a marker. */
  private static final Set<TransactionState> COMPLETING = Set.of(TransactionState.ONGOING,
      TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT,
      TransactionState.PREPARE_EPOCH_FENCE);
  /** Every state this code knows the meaning of; any other is held for an operator. */
  private static final Set<TransactionState> KNOWN = Set.of(TransactionState.ONGOING,
      TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT,
      TransactionState.PREPARE_EPOCH_FENCE, TransactionState.COMPLETE_COMMIT,
      TransactionState.COMPLETE_ABORT, TransactionState.EMPTY);

  public CoordinatorView {
    state = state == null ? TransactionState.UNKNOWN : state;
    partitions = Set.copyOf(partitions);
  }

  /** True when the coordinator will still send {@code partition} a marker for this producer. */
  public boolean owesMarkerTo(TopicPartition partition) {
    return COMPLETING.contains(state) && partitions.contains(partition);
  }

  /** True when the state is one whose meaning is known here. */
  public boolean stateKnown() {
    return KNOWN.contains(state);
  }
}
