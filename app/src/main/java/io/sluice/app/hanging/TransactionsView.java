package io.sluice.app.hanging;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The cluster's transactions as {@link HangingTransactionSweeper} needs them (Kafka's Admin). */
public interface TransactionsView {

  /** The transactions the leaders of {@code topics}' partitions hold open now. */
  List<OpenTransaction> open(Collection<String> topics) throws Exception;

  /**
   * What the coordinators say of each producer's current transaction; a producer the
   * coordinators do not know (its transactional id expired, or this client may not describe it)
   * is absent.
   */
  Map<Long, CoordinatorView> coordinators(Set<Long> producerIds) throws Exception;

  /**
   * Makes the records of {@code transaction} durable before it is aborted: the records of its
   * partition from its first offset to the partition's end now, read uncommitted, that {@code
   * transactionalId} wrote (or that name no writer), written again to the same partition (key,
   * value, headers, timestamp) in committed transactions of the sweeper's own producer. Returns
   * once they are committed; throws when any is not (the caller then must not abort).
   *
   * @return how many records were written again
   */
  long writeAgain(OpenTransaction transaction, String transactionalId) throws Exception;

  /** Writes an abort marker for {@code transaction} to its partition. */
  void abort(OpenTransaction transaction) throws Exception;
}
