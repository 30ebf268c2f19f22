package io.sluice.dispatcher.app.hanging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Decides which open transactions are hanging: open on a partition, with no marker ever coming.
 *
 * <p>Why this exists: a hanging transaction stops every {@code read_committed} consumer of its
 * partition at the transaction's first offset (the last stable offset) for good, while the
 * records after it keep arriving; nothing fails and nothing is logged. Kafka leaves one behind
 * when a transaction coordinator restarts and, resending the markers of a transaction it had
 * prepared to commit, finds no leader yet for a partition: it skips that partition as "likely
 * deleted" and writes the transaction complete (in a chaos run a broker SIGKILL did this to
 * {@code sluice.ready-2}, and 97 events behind it were never dispatched). Only an abort marker
 * written from outside ({@code kafka-transactions.sh abort}, {@code Admin.abortTransaction})
 * moves the partition on.
 *
 * <p>The rule is Kafka's own ({@code kafka-transactions.sh find-hanging}), with a patience of
 * our choosing and limited to Sluice's own producers: a transaction is hanging when it has been
 * open for at least {@code patience} (seen open, same producer and first offset, on every look
 * since) and its coordinator no longer owes the partition a marker: it has completed the
 * producer's transaction, or the producer's current transaction does not include the partition. Sluice's
 * producers time out after 5 s (the coordinator then aborts them), so a patience of tens of
 * seconds never cuts a live transaction; and an ongoing transaction of the same producer that
 * includes the partition is left alone, since its marker ends the open one too.
 *
 * <p>Aborting is the safe outcome: the producer that wrote the records was fenced or moved on
 * and did not count them as sent (its input offsets went with the same transaction), so its
 * input is processed again; the records past the open transaction, from other producers, become
 * readable.
 */
public final class HangingTransactionJudge {
  private final long patienceMillis;
  /** When each open transaction was first seen open, by partition: one open per partition. */
  private final Map<OpenTransaction, Long> firstSeen = new HashMap<>();

  public HangingTransactionJudge(Duration patience) {
    this.patienceMillis = patience.toMillis();
  }

  /**
   * Records the transactions open now and returns those open for at least the patience. A
   * transaction no longer open is forgotten; one that reappears starts its wait again.
   */
  public List<OpenTransaction> openTooLong(Collection<OpenTransaction> openNow, long nowMillis) {
    firstSeen.keySet().retainAll(openNow);
    List<OpenTransaction> tooLong = new ArrayList<>();
    for (OpenTransaction t : openNow) {
      long since = firstSeen.computeIfAbsent(t, k -> nowMillis);
      if (nowMillis - since >= patienceMillis) {
        tooLong.add(t);
      }
    }
    return tooLong;
  }

  /** What may be done about a transaction open too long. */
  public enum Verdict {
    /** Its coordinator still owes the partition a marker: it will end on its own. */
    OWED,
    /** Sluice's own, and its coordinator is done with the partition: no marker is coming. */
    HANGING,
    /** Not Sluice's, or its producer unknown to the coordinators: for an operator to judge. */
    NOT_OURS
  }

  /**
   * {@link Verdict#HANGING} when no marker will reach {@code open}'s partition and Sluice may
   * write one: the coordinator knows the producer, the producer is one of Sluice's ({@code ours}:
   * its transactional id), and the coordinator is done with that partition.
   *
   * <p>Narrower than {@code kafka-transactions.sh find-hanging}, which also counts a producer no
   * coordinator lists as hanging. On a shared cluster that reading is not safe from inside an
   * application: {@code ListTransactions} leaves out the transactional ids the caller may not
   * describe, so another application's live transaction (a producer writing the inbound topic
   * transactionally, or committing its own offsets to {@code __consumer_offsets}) would look
   * unknown and be aborted. Such a transaction is left to the operator ({@link
   * HangingTransactionSweeper} says so); Sluice's own, the case a broker restart leaves behind,
   * are always known to their coordinator for {@code transactional.id.expiration.ms} (7 days).
   */
  public static Verdict judge(OpenTransaction open, Optional<CoordinatorView> coordinator,
      Predicate<String> ours) {
    Optional<CoordinatorView> known = coordinator.filter(c -> c.producerId() == open.producerId());
    if (known.isPresent() && known.get().owesMarkerTo(open.partition())) {
      return Verdict.OWED;
    }
    return known.filter(c -> ours.test(c.transactionalId())).isPresent()
        ? Verdict.HANGING : Verdict.NOT_OURS;
  }
}
