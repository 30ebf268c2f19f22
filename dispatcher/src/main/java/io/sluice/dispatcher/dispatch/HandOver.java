package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.intake.ReadBudget;
import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.dispatch.offsets.OwnedPartitions;
import io.sluice.dispatcher.dispatch.offsets.PartitionTakeover;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What happens when partitions move. A revoked partition's queued and paused events, and those
 * waiting for a previous owner's outcome, are dropped (its next owner reads them again), its calls in flight are waited for a few seconds at most, its
 * settled offsets committed and its deliveries logged before the next owner reads it; an
 * assigned one starts from what the last commit and the delivered log say
 * ({@link PartitionTakeover}). Runs on the consumer thread, inside {@code poll}.
 */
final class HandOver implements ConsumerRebalanceListener {
  private static final Logger LOG = LoggerFactory.getLogger(HandOver.class);
  /** Longest wait at a hand-over for the revoked partitions' calls in flight (rebalances wait). */
  private static final long CALLS_MILLIS = 5_000;
  /** Longest wait at a hand-over for the settlements sent to be acknowledged. */
  static final long WRITES_MILLIS = 3_000;
  /** Longest wait at a hand-over for the delivered log's write. */
  private static final long LOG_MILLIS = 1_000;

  private final Lanes lanes;
  private final PauseKeeper pauses;
  private final InheritedCalls inherited;
  private final ReadBudget budget;
  private final OwnedPartitions owned;
  private final Books books;
  private final InstanceShare instances;
  private final PartitionTakeover takeover;
  private final Clock clock;
  private final LongSupplier nanoTime;
  private final long longestTimeoutMillis;
  /** The dispatcher is halting as a crash would: nothing is handed over. */
  private final BooleanSupplier abrupt;
  /** Waits, bounded, until every settlement sent is acknowledged or failed ({@link BoundedFlush}). */
  private final Runnable flushWrites;

  HandOver(Lanes lanes, PauseKeeper pauses, InheritedCalls inherited, ReadBudget budget, OwnedPartitions owned, Books books,
      InstanceShare instances, PartitionTakeover takeover, Clock clock, LongSupplier nanoTime,
      long longestTimeoutMillis, BooleanSupplier abrupt, Runnable flushWrites) {
    this.lanes = lanes;
    this.pauses = pauses;
    this.inherited = inherited;
    this.budget = budget;
    this.owned = owned;
    this.books = books;
    this.instances = instances;
    this.takeover = takeover;
    this.clock = clock;
    this.nanoTime = nanoTime;
    this.longestTimeoutMillis = longestTimeoutMillis;
    this.abrupt = abrupt;
    this.flushWrites = new BoundedFlush(flushWrites, WRITES_MILLIS);
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    if (abrupt.getAsBoolean()) {
      return;
    }
    awaitCalls(partitions);
    // The calls delivered go to the log at once, before anything that can wait on the broker:
    // the next owner writes their outcomes instead of calling them again.
    List<CompletableFuture<Void>> delivered = books.logNow(clock.millis());
    settleWhatIsWritten();
    // What settled since goes to the log and the commit before the next owner reads them.
    awaitQuietly(books.handOver(List.copyOf(partitions), clock.millis()), delivered);
    forget(partitions);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    // Back after a loss: what settled while the partition was away reaches the delivered log,
    // which the takeover reads, before reading starts over from the last commit.
    settleWhatIsWritten();
    awaitQuietly(books.logNow(clock.millis()), List.of());
    Map<TopicPartition, PartitionTakeover.Inherited> inherited = takeover.takeOver(partitions);
    for (TopicPartition tp : partitions) {
      owned.assign(tp, inherited.get(tp));
    }
    instances.owns(owned.count());
  }

  /**
   * Lost without a hand-over (the group fenced this member: a broker restart, a missed session):
   * no commit is possible, but what this process settled still counts. Its settlements sent are
   * waited for and taken into the books before the partitions are forgotten, so that the settled
   * offsets go with them ({@link PartitionTakeover#lost}) and to the delivered log; else, assigned
   * back at once, it read its own parked, retried and delivered records again and handled them a
   * second time (the chaos run: 108 duplicate calls after one broker restart).
   */
  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    if (!abrupt.getAsBoolean()) {
      settleWhatIsWritten();
      awaitQuietly(books.logNow(clock.millis()), List.of());
    }
    forget(partitions);
  }

  /**
   * A settlement sent and not yet acknowledged is outside the books: committed or handed over
   * without it, the next owner would handle its event again (a second call, a second retry or
   * dead letter). So the writes are waited for, bounded ({@link BoundedFlush}), as the shutdown
   * does, and taken into the books (issue 34, 3).
   */
  private void settleWhatIsWritten() {
    flushWrites.run();
    books.apply();
  }

  /**
   * Before a partition goes to its next owner: no new call starts for it (its queue is dropped,
   * the next owner reads those records again), and the calls in flight are waited for, at most
   * {@link #CALLS_MILLIS}, so that what they delivered is in the log and the commit the next
   * owner starts from. Without this, every rebalance (each member joining or leaving) called
   * again whatever was in flight, however long the calls took.
   */
  private void awaitCalls(Collection<TopicPartition> partitions) {
    dropQueued(Set.copyOf(partitions));
    long deadline = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(
        Math.min(CALLS_MILLIS, longestTimeoutMillis + 500));
    try {
      for (ProviderLane lane : lanes.all()) {
        if (!lane.awaitCalls(partitions, deadline)) {
          LOG.info("dispatcher: calls of {} still in flight at the hand-over; the next owner may "
              + "call them again", partitions);
          break;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void forget(Collection<TopicPartition> partitions) {
    owned.forget(partitions, takeover::lost);
    instances.owns(owned.count());
    dropQueued(Set.copyOf(partitions));
  }

  private void dropQueued(Set<TopicPartition> gone) {
    lanes.drop(e -> gone.contains(e.partition())).forEach(budget::release);
    pauses.drop(e -> gone.contains(e.partition())).forEach(budget::release);
    inherited.forget(gone).forEach(budget::release);
  }

  private static void awaitQuietly(List<CompletableFuture<Void>> writes,
      List<CompletableFuture<Void>> earlier) {
    List<CompletableFuture<Void>> all = new ArrayList<>(writes);
    all.addAll(earlier);
    try {
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
          .get(LOG_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.debug("dispatcher: delivered log not written at the hand-over ({})", e.toString());
    }
  }
}
