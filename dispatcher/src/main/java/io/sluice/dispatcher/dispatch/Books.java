package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.dispatch.offsets.OffsetCommits;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.dispatcher.dispatch.offsets.PendingDeliveries;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.TopicPartition;

/**
 * The owned partitions' books: which records are settled (their settlement acknowledged by
 * Kafka, handed over from the producer's threads), what that lets {@link OffsetCommits} commit,
 * the bytes no longer held ({@link ReadBudget}), and the deliveries and settlements beyond the
 * commit written to the {@link DeliveredLog} for a partition's next owner. Settlements arrive on
 * any thread ({@link #settled}, {@link #dropped}); everything else runs on the consumer thread.
 *
 * <h2>What is committed</h2>
 * An event is settled when the record that takes it on (an outcome, a deferral, a dead letter) is
 * acknowledged by Kafka. A crash before that leaves the offset uncommitted and the next owner reads
 * the event again, so provider calls are at least once; each carries the event id as its
 * {@code Idempotency-Key}. A revoked partition's queued events are dropped (the new owner reads
 * them again); its calls in flight are waited for, a few seconds at most, before it is handed over
 * ({@link HandOver}), and settlements that come later are ignored.
 *
 * <p>The committed offset stops at the first unsettled record, which fair queueing may hold for a
 * long time; so each commit's metadata also lists the offsets settled beyond it
 * ({@code OffsetLedger.settledAhead()}, {@code SettledOffsetsCodec}), and the partition's next
 * owner skips those. A crash then repeats only the calls in flight and those settled since the
 * last commit, not everything behind the oldest held record.
 *
 * <p>Settled is later than delivered, and a commit needs the group coordinator: while the broker is
 * away calls go on and nothing commits, and after its restart the group forgets its members and
 * another instance takes the partition from the last commit that went through. So the calls
 * delivered and the records settled beyond the commit are also written to a {@link DeliveredLog}
 * in Redis (the deliveries once per partition per commit round, the settled records as soon as
 * Kafka acknowledges them, {@link #SETTLED_MARKS_EVERY_MILLIS}); a new owner reads it when a
 * partition is assigned, skips the settled records and settles the delivered ones with an outcome
 * instead of calling them again: the previous owner's, or its own after a grace
 * ({@link InheritedCalls}).
 *
 * <p>A call's "delivered" goes to the log one round ({@link #COMMIT_EVERY_MILLIS}) after it, and
 * not at all when Kafka acknowledged its outcome by then: the outcome's "settled" says all. A
 * "delivered" without its "settled" tells a partition's next owner that the outcome may or may
 * not be written, and it waits for it (the producer's delivery timeout, {@code SettlementGrace})
 * and then writes one itself: when the old owner was killed after its outcome was acknowledged
 * but before the log heard, that made two outcome records of one call. Now the log holds
 * "delivered, not settled" only for an outcome unacknowledged for a round (a broker away), and a
 * crash in the round after a call has the next owner call it again instead: a duplicate call
 * (at least once, with its {@code Idempotency-Key}), not an event settled twice for one call.
 *
 * <p>The settled records go to the log from the dispatcher's timer, not the consumer thread:
 * a member the group fenced (a broker restart) spends seconds inside {@code poll} rejoining, and
 * meanwhile another takes its partitions and reads the log. Written from the consumer thread, a
 * settlement acknowledged then reached the log too late, and the new owner wrote the outcome of
 * a call already settled a second time (the chaos run: events ended twice; {@code BooksTest}).
 * And they go as soon as acknowledged, not at the timer's next round: a SIGKILL in between has the
 * next owner call the record again, and a round was up to 100 ms after every acknowledgement.
 */
final class Books {
  /**
   * How often settled offsets are committed. A crash calls again what settled since the last
   * commit (the commit's metadata covers everything before it): at 100 ms, a tenth of a second of
   * calls, 20 at 200 calls/s. A commit is one small request to the group coordinator.
   */
  static final long COMMIT_EVERY_MILLIS = 100;
  /**
   * The least time between two writes of settled marks to the log. A mark goes as soon as Kafka
   * acknowledges its settlement, unless one went less than this ago: then with the next, together
   * with every mark acknowledged meanwhile (one write per partition). A SIGKILL between the
   * acknowledgement and the write has the next owner call the record again; waiting for a
   * {@link #COMMIT_EVERY_MILLIS} round, that window was up to 100 ms after every acknowledgement
   * (the chaos run: calls answered just before a SIGKILL were called again). At most 100 writes a
   * second per partition, and only while settlements are acknowledged.
   */
  static final long SETTLED_MARKS_EVERY_MILLIS = 10;
  /**
   * How long a record acknowledged is remembered as such, so that its call's round does not log it
   * delivered: ten rounds. A round later than that (the consumer thread held up) writes the
   * "delivered" too, after the "settled", which a reader takes as settled.
   */
  static final long ACKNOWLEDGED_KEPT_MILLIS = 10 * COMMIT_EVERY_MILLIS;

  private final OwnedPartitions owned;
  private final OffsetCommits commits;
  private final ReadBudget budget;
  private final DeliveredLog deliveredLog;
  /** Deliveries not yet written to the log, from the providers' threads. */
  private final PendingDeliveries deliveries = new PendingDeliveries(COMMIT_EVERY_MILLIS);
  private final ConcurrentLinkedQueue<DispatchEntry> settled = new ConcurrentLinkedQueue<>();
  /** Entries whose settlement was given up because their partition moved: held no longer. */
  private final ConcurrentLinkedQueue<DispatchEntry> dropped = new ConcurrentLinkedQueue<>();
  /** Records settled and not yet in the log, written by the timer (and at a hand-over). */
  private final PendingDeliveries settledMarks = new PendingDeliveries(COMMIT_EVERY_MILLIS);
  /**
   * Records acknowledged lately, with when (the dispatcher's clock): their "delivered" is not
   * written, their "settled" is (added before {@link #settledMarks}). Kept
   * {@link #ACKNOWLEDGED_KEPT_MILLIS}, well past the round that takes their deliveries: removed
   * when the settled mark was written, a call acknowledged within its round had its "delivered"
   * written after its "settled", two entries of one record in the log.
   */
  private final Map<Mark, Long> acknowledged = new ConcurrentHashMap<>();
  /** When {@link #acknowledged} was last rid of its old records (consumer thread). */
  private long acknowledgedSweptMillis;
  private final Clock clock;
  private final ScheduledExecutorService timer;
  /** A write of the settled marks is queued on the timer: marks acknowledged now join it. */
  private final AtomicBoolean settledWriteQueued = new AtomicBoolean();
  /** When the timer last wrote the settled marks (the dispatcher's clock). */
  private volatile long settledWrittenMillis = Long.MIN_VALUE / 2;

  /**
   * @param timer writes the settled records to the log once acknowledged, at most every
   *              {@link #SETTLED_MARKS_EVERY_MILLIS}
   */
  Books(OwnedPartitions owned, OffsetCommits commits, ReadBudget budget, DeliveredLog deliveredLog,
      ScheduledExecutorService timer, Clock clock) {
    this.owned = owned;
    this.commits = commits;
    this.budget = budget;
    this.deliveredLog = deliveredLog;
    this.clock = clock;
    this.timer = timer;
  }

  /** One record of one partition. */
  private record Mark(TopicPartition partition, long offset) {}

  /** Kafka acknowledged the record that settles {@code entry}. Any thread. */
  void settled(DispatchEntry entry) {
    settled.add(entry);
    long now = clock.millis();
    // First: a round that finds the call acknowledged finds its settled mark written or queued.
    acknowledged.put(new Mark(entry.partition(), entry.offset()), now);
    // For the partition's next owner, should the commit not go through (DeliveredLog).
    settledMarks.add(entry.partition(), DeliveredLog.Delivered.settledAt(entry.offset()), now);
    writeSettledSoon(now);
  }

  /**
   * Queues a write of the settled marks on the timer, unless one is queued already (it takes this
   * mark too): now, or {@link #SETTLED_MARKS_EVERY_MILLIS} after the last one.
   */
  private void writeSettledSoon(long nowMillis) {
    if (!settledWriteQueued.compareAndSet(false, true)) {
      return;
    }
    long wait = Math.max(0, settledWrittenMillis + SETTLED_MARKS_EVERY_MILLIS - nowMillis);
    try {
      timer.schedule(this::logSettled, wait, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      settledWriteQueued.set(false); // closing: the marks go with the hand-over, or not at all
    }
  }

  /**
   * The timer's write: the settled records acknowledged so far, to the log, dropping nothing
   * (the consumer thread's writes trim it to the commit).
   */
  private void logSettled() {
    // First: a mark acknowledged from now on queues the next write, none is left behind.
    settledWriteQueued.set(false);
    long now = clock.millis();
    settledWrittenMillis = now;
    try {
      logSettledNow(now, -1);
    } catch (RuntimeException e) {
      // the log is best effort: a failed write costs calls made again, never an event
    }
  }

  /** Writes the settled records not yet in the log; {@code keepFrom} -1 drops nothing. */
  private List<CompletableFuture<Void>> logSettledNow(long nowMillis, long keepFrom) {
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    settledMarks.takeNow(nowMillis).forEach((tp, list) -> {
      writes.add(deliveredLog.record(tp, keepFrom, list).toCompletableFuture());
    });
    return writes;
  }

  /** {@code entry}'s settlement was given up: its partition moved. Any thread. */
  void dropped(DispatchEntry entry) {
    dropped.add(entry);
  }

  /** Calls delivered, waiting for the delivered log. Any thread. */
  PendingDeliveries deliveries() {
    return deliveries;
  }

  /** Takes the settlements handed over since the last turn into the books. */
  void apply() {
    DispatchEntry e;
    while ((e = settled.poll()) != null) {
      budget.release(e); // settled, whichever assignment read it: its bytes are no longer held
      if (owned.settle(e)) {
        commits.settled();
      }
    }
    while ((e = dropped.poll()) != null) {
      budget.release(e); // its new owner settles it; its bytes are not ours to hold
    }
  }

  /** A record the previous owner's commit covered: settled without being held. */
  void skipped() {
    commits.settled();
  }

  /**
   * Commits, and writes the delivered log, when each is due: the calls delivered at least a round
   * ago whose outcome is not acknowledged yet (see the class).
   */
  void commitIfDue(long nowMillis) {
    commits.commitIfDue();
    log(unacknowledged(deliveries.takeIfDue(nowMillis, COMMIT_EVERY_MILLIS)));
    if (nowMillis - acknowledgedSweptMillis >= COMMIT_EVERY_MILLIS) {
      acknowledgedSweptMillis = nowMillis;
      acknowledged.values().removeIf(at -> nowMillis - at > ACKNOWLEDGED_KEPT_MILLIS);
    }
  }

  /** Commits what is settled now (shutdown). */
  void commitNow() {
    commits.commitNow();
  }

  /**
   * Commits the revoked partitions' settled offsets and writes every delivery not yet logged;
   * returns the log's writes, for the hand-over to wait on.
   */
  List<CompletableFuture<Void>> handOver(List<TopicPartition> revoked, long nowMillis) {
    commits.commitRevoked(revoked);
    return logNow(nowMillis);
  }

  /** Writes every delivery and settled record not yet logged, now (a partition moves). */
  List<CompletableFuture<Void>> logNow(long nowMillis) {
    List<CompletableFuture<Void>> writes =
        new ArrayList<>(log(unacknowledged(deliveries.takeNow(nowMillis))));
    writes.addAll(logSettledNow(nowMillis, -1));
    return writes;
  }

  /**
   * Of {@code byPartition}'s deliveries, those whose outcome Kafka has not acknowledged: for the
   * others the settled mark is written, or being written.
   */
  private Map<TopicPartition, List<DeliveredLog.Delivered>> unacknowledged(
      Map<TopicPartition, List<DeliveredLog.Delivered>> byPartition) {
    Map<TopicPartition, List<DeliveredLog.Delivered>> left = new LinkedHashMap<>();
    byPartition.forEach((tp, list) -> {
      List<DeliveredLog.Delivered> open = list.stream()
          .filter(d -> !acknowledged.containsKey(new Mark(tp, d.offset()))).toList();
      if (!open.isEmpty()) {
        left.put(tp, open);
      }
    });
    return left;
  }

  /**
   * Writes a batch of deliveries to the {@link DeliveredLog}, one write per partition. A
   * partition no longer ours is written too (its new owner may not have read that far), without
   * dropping anything.
   */
  private List<CompletableFuture<Void>> log(Map<TopicPartition, List<DeliveredLog.Delivered>> byPartition) {
    List<CompletableFuture<Void>> writes = new ArrayList<>();
    byPartition.forEach((tp, list) -> writes.add(
        deliveredLog.record(tp, owned.confirmedCommit(tp), list).toCompletableFuture()));
    return writes;
  }
}
