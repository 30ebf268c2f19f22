package io.sluice.app.hanging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.internals.Topic;

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
 * since) and its coordinator no longer owes the partition a marker. Sluice's producers time out
 * after 5 s (the coordinator then aborts them), so a patience of tens of seconds never cuts a
 * transaction whose marker is still coming.
 *
 * <p>How a hanging transaction may be ended depends on what it was, and the coordinator cannot
 * say: its state is that of the producer's <em>latest</em> transaction, and the one open on the
 * partition may be an earlier one (its marker skipped there, the producer gone on to others). In
 * the case this was built for the open one is <em>committed</em>: the coordinator prepared the
 * commit, the broker restarted, the coordinator wrote it complete without a marker on the
 * partition; the transaction's input offsets were committed with it and will never be read
 * again. An abort marker would then throw its records away: loss. So on a data topic the
 * records are first written again ({@link Verdict#WRITE_AGAIN_THEN_ABORT}: read back from the
 * open transaction's first offset, those its producer stamped as its own written in a committed
 * transaction of the sweeper's own) and only then the open one is aborted. If it was in truth aborted, its input is processed again and
 * the records written again are duplicates, which the providers' {@code Idempotency-Key}
 * absorbs; a crash between the two steps only writes them again at the next look. On {@code
 * __consumer_offsets} an abort only loses an offset commit (the group reads again from the one
 * before: duplicates, never loss), so there the open transaction is aborted plainly.
 */
final class HangingTransactionJudge {
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

  /** When {@code t} was first seen open (epoch ms), or {@code nowMillis} when it was not. */
  public long openSince(OpenTransaction t, long nowMillis) {
    return firstSeen.getOrDefault(t, nowMillis);
  }

  /** What may be done about a transaction open too long. */
  public enum Verdict {
    /** Its coordinator still owes the partition a marker: it will end on its own. */
    OWED,
    /**
     * Its producer is in a transaction now, with the same epoch, which leaves the partition out
     * so far: under transaction version 1 it may add the partition at any moment, and an abort
     * (same epoch) would take its new records too. Left alone: the marker of a transaction of
     * its that includes the partition ends the open one as well; once it is fenced (a new epoch)
     * or stops, the verdict changes.
     */
    LIVE,
    /** Sluice's, done with the partition, on {@code __consumer_offsets}: abort it. */
    ABORT,
    /** Sluice's, done with the partition, on a data topic: write its records again, then abort. */
    WRITE_AGAIN_THEN_ABORT,
    /**
     * Sluice's, but the coordinator reports a state whose meaning is not known here: nothing is
     * done, and an operator is told (an abort could lose a committed transaction).
     */
    HOLD,
    /** Not Sluice's, or its producer unknown to the coordinators: for an operator to judge. */
    NOT_OURS
  }

  /**
   * What to do about {@code open}, open too long: nothing while a marker is owed or its producer
   * may be live; end it when no marker will reach its partition and it is Sluice's (its
   * transactional id is one of {@code ours}), the coordinator knows the producer, and the
   * coordinator's state is one whose meaning is known.
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
    if (known.isEmpty() || known.get().transactionalId() == null
        || !ours.test(known.get().transactionalId())) {
      return known.isPresent() && known.get().owesMarkerTo(open.partition())
          ? Verdict.OWED : Verdict.NOT_OURS;
    }
    CoordinatorView c = known.get();
    if (c.owesMarkerTo(open.partition())) {
      return Verdict.OWED;
    }
    if (!c.stateKnown()) {
      return Verdict.HOLD;
    }
    if (c.state() == TransactionState.ONGOING && c.producerEpoch() == open.producerEpoch()) {
      return Verdict.LIVE;
    }
    return Topic.GROUP_METADATA_TOPIC_NAME.equals(open.partition().topic())
        ? Verdict.ABORT : Verdict.WRITE_AGAIN_THEN_ABORT;
  }
}
