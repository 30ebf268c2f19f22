package io.sluice.dispatcher.app.hanging;

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
   * coordinators do not know (its transactional id expired) is absent.
   */
  Map<Long, CoordinatorView> coordinators(Set<Long> producerIds) throws Exception;

  /** Writes an abort marker for {@code transaction} to its partition. */
  void abort(OpenTransaction transaction) throws Exception;
}
