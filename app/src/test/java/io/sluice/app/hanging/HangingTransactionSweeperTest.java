package io.sluice.app.hanging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.app.hanging.HangingTransactionSweeper.Failure;
import io.sluice.testkit.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The case of the chaos run: the gate's producer 4 left a transaction open on sluice.ready-2 at
 * offset 261 when the broker was killed; the restarted coordinator wrote it complete without a
 * marker there, and the dispatchers stood at offset 261 while 97 events waited behind it. That
 * transaction had been prepared to commit: its input offsets were committed with it, so its
 * records must outlive the abort that frees the partition.
 */
class HangingTransactionSweeperTest {
  private static final TopicPartition READY_2 = new TopicPartition("sluice.ready", 2);
  private static final TopicPartition OFFSETS_0 = new TopicPartition("__consumer_offsets", 0);
  private static final OpenTransaction LEFT_OPEN =
      new OpenTransaction(READY_2, 4, (short) 90, 0, 261);
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  private static final String PRODUCER_4 =
      "sluice-gate-32d2eaa9-6b1c-4f0e-9a53-0c1d2e3f4a5b-1";
  private static final SluiceTransactionalIds OURS =
      new SluiceTransactionalIds("sluice-gate", "sluice.", "relay");

  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final FakeView view = new FakeView();
  private final Counted counted = new Counted();
  private final HangingTransactionSweeper sweeper = new HangingTransactionSweeper(view,
      List.of("sluice.ready", "__consumer_offsets"), PATIENCE, clock, OURS, counted);

  /** Producer 4's coordinator, in {@code state} at {@code epoch}, with {@code partitions}. */
  private static CoordinatorView coordinator(TransactionState state, int epoch,
      TopicPartition... partitions) {
    return new CoordinatorView(4, (short) epoch, PRODUCER_4, state, Set.of(partitions), 5_000);
  }

  @Test
  void writesACommittedTransactionsRecordsAgainBeforeAbortingItOnceOpenForThePatience() {
    view.open.add(LEFT_OPEN);
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 91));

    assertEquals(List.of(), sweeper.sweep(), "first seen now: not open for the patience yet");
    clock.advance(PATIENCE.minusMillis(1));
    assertEquals(List.of(), sweeper.sweep());
    clock.advanceMillis(1);

    assertEquals(List.of(LEFT_OPEN), sweeper.sweep());
    assertEquals(List.of("write again " + LEFT_OPEN, "abort " + LEFT_OPEN), view.calls);
    assertEquals(List.of(PRODUCER_4), view.writers, "the records producer 4 wrote");
    assertEquals(List.of(LEFT_OPEN), counted.ended);
  }

  @Test
  void writesAgainBeforeAbortingWhateverTheCoordinatorSaysOfTheProducersLatestTransaction() {
    // Its state is of the producer's latest transaction, not necessarily the open one: a commit
    // whose marker was skipped here may be followed by an aborted or an empty one.
    for (CoordinatorView said : List.of(
        coordinator(TransactionState.PREPARE_COMMIT, 91, new TopicPartition("sluice.delay", 0)),
        coordinator(TransactionState.COMPLETE_ABORT, 91),
        coordinator(TransactionState.PREPARE_ABORT, 91, new TopicPartition("sluice.delay", 0)),
        coordinator(TransactionState.EMPTY, 92),
        coordinator(TransactionState.ONGOING, 93, new TopicPartition("sluice.delay", 0)))) {
      FakeView view = new FakeView();
      view.open.add(LEFT_OPEN);
      view.coordinators.put(4L, said);
      HangingTransactionSweeper sweeper = new HangingTransactionSweeper(view,
          List.of("sluice.ready"), PATIENCE, clock, OURS, counted);
      sweeper.sweep();
      clock.advance(PATIENCE);

      assertEquals(List.of(LEFT_OPEN), sweeper.sweep(), said::toString);
      assertEquals(List.of("write again " + LEFT_OPEN, "abort " + LEFT_OPEN), view.calls,
          said::toString);
    }
  }

  @Test
  void abortsAHangingTransactionOnConsumerOffsetsWithoutWritingItAgain() {
    // An offset commit lost there means records read again: duplicates, never a loss.
    OpenTransaction offsets = new OpenTransaction(OFFSETS_0, 4, (short) 90, 0, 77);
    view.open.add(offsets);
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 91));
    sweeper.sweep();
    clock.advance(PATIENCE);

    assertEquals(List.of(offsets), sweeper.sweep());
    assertEquals(List.of("abort " + offsets), view.calls);
  }

  @Test
  void leavesATransactionWhoseCoordinatorStillOwesThePartitionAMarker() {
    for (TransactionState owing : List.of(TransactionState.ONGOING,
        TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT)) {
      view.coordinators.put(4L, coordinator(owing, 90, READY_2));
      leftOpenFor(PATIENCE.multipliedBy(10));

      assertEquals(List.of(), sweeper.sweep(), owing::toString);
      assertEquals(List.of(), view.calls, owing::toString);
    }
  }

  @Test
  void leavesAProducerInATransactionOfTheSameEpochThatMayStillAddThePartition() {
    // Transaction version 1: the producer keeps its epoch from one transaction to the next, so
    // an abort marker would also end the records it may write here between the look and the
    // marker. Its own marker, once its transaction includes the partition, ends the open one.
    view.coordinators.put(4L, coordinator(TransactionState.ONGOING, 90,
        new TopicPartition("sluice.delay.1s", 0)));
    leftOpenFor(PATIENCE.multipliedBy(10));

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), view.calls);
  }

  @Test
  void tellsAnOperatorOnceOfAPartitionHeldBehindALiveProducerForTenPatiences() {
    view.coordinators.put(4L, coordinator(TransactionState.ONGOING, 90,
        new TopicPartition("sluice.delay.1s", 0)));
    leftOpenFor(PATIENCE.multipliedBy(10).minusMillis(1));
    sweeper.sweep();
    assertEquals(List.of(), counted.held, "not yet");
    clock.advanceMillis(1);

    sweeper.sweep();
    sweeper.sweep();

    assertEquals(List.of(LEFT_OPEN), counted.held, "once");
    assertEquals(List.of(), view.calls);
  }

  @Test
  void holdsATransactionWhoseCoordinatorStateIsUnknownAndSaysSoOnce() {
    view.coordinators.put(4L, coordinator(TransactionState.UNKNOWN, 91));
    leftOpenFor(PATIENCE);

    assertEquals(List.of(), sweeper.sweep());
    clock.advance(PATIENCE);
    assertEquals(List.of(), sweeper.sweep());

    assertEquals(List.of(), view.calls, "neither written again nor aborted");
    assertEquals(List.of(LEFT_OPEN), counted.held, "counted once");
    assertTrue(sweeper.status().contains("for an operator"), sweeper.status());
  }

  @Test
  void aLookThatFailsIsCountedEachTimeAndShownUntilALookWorksAgain() {
    view.openFails = new IllegalStateException("Authorization failed: DescribeProducers");

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), sweeper.sweep());

    assertEquals(List.of(Failure.LOOK, Failure.LOOK), counted.failed, "once per look");
    assertEquals(Set.of(Failure.LOOK), sweeper.failing().keySet());
    assertTrue(sweeper.status().contains("Authorization failed: DescribeProducers"),
        sweeper.status());
    view.openFails = null;
    sweeper.sweep();
    assertEquals(Map.of(), sweeper.failing());
  }

  @Test
  void aTopicThatCannotBeLookedAtLeavesTheOthersSwept() {
    // DescribeProducers needs Read on the topic, which clusters often withhold on
    // __consumer_offsets.
    view.openFailsOn = "__consumer_offsets";
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 91));
    view.open.add(LEFT_OPEN);
    sweeper.sweep();
    clock.advance(PATIENCE);

    assertEquals(List.of(LEFT_OPEN), sweeper.sweep());
    assertEquals(Set.of(Failure.LOOK), sweeper.failing().keySet());
    assertTrue(sweeper.failing().get(Failure.LOOK).contains("__consumer_offsets"),
        sweeper.failing()::toString);
  }

  @Test
  void aCoordinatorLookThatFailsEndsNothing() {
    view.coordinatorsFail = new TimeoutException("listTransactions");
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 91));
    leftOpenFor(PATIENCE);

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), view.calls);
    assertEquals(List.of(Failure.COORDINATORS), counted.failed);
  }

  @Test
  void anAbortThatTimesOutIsTriedAgainAtTheNextLookWithoutWritingTheRecordsAgainOnceMore() {
    // Written again at each look, the copies (in the range themselves) would be copied too, more
    // at every look for as long as the abort fails.
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 91));
    view.abortFails = new TimeoutException("abortTransaction: timed out after 10 s");
    leftOpenFor(PATIENCE);

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(Failure.ABORT, Failure.ABORT), counted.failed);
    assertEquals(List.of(), counted.ended);
    assertEquals(Set.of(Failure.ABORT), sweeper.failing().keySet());

    view.abortFails = null;
    assertEquals(List.of(LEFT_OPEN), sweeper.sweep());
    assertEquals(List.of("write again " + LEFT_OPEN, "abort " + LEFT_OPEN), view.calls);
    assertEquals(Map.of(), sweeper.failing());
  }

  @Test
  void aSweeperThatStartsAfreshBetweenTheTwoStepsWritesTheRecordsAgainOnceMore() {
    // A crash between writing again and the abort: only duplicates come of it.
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 91));
    view.abortFails = new TimeoutException("abortTransaction: timed out after 10 s");
    leftOpenFor(PATIENCE);
    sweeper.sweep();
    view.abortFails = null;
    HangingTransactionSweeper restarted = new HangingTransactionSweeper(view,
        List.of("sluice.ready"), PATIENCE, clock, OURS, counted);
    restarted.sweep();
    clock.advance(PATIENCE);

    assertEquals(List.of(LEFT_OPEN), restarted.sweep());
    assertEquals(List.of("write again " + LEFT_OPEN, "write again " + LEFT_OPEN,
        "abort " + LEFT_OPEN), view.calls);
  }

  @Test
  void doesNotAbortWhenWritingTheRecordsAgainFails() {
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 91));
    view.writeAgainFails = new IllegalStateException("reading sluice.ready-2 stalled");
    leftOpenFor(PATIENCE);

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), view.calls);
    assertEquals(List.of(Failure.WRITE_AGAIN), counted.failed);
  }

  @Test
  void looksAgainRightBeforeAbortingAndLeavesItWhenTheCoordinatorMovedOn() {
    // Between the look and the abort the producer began a transaction that includes the
    // partition: its marker is owed now, and an abort would cut its records.
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 90));
    view.afterWriteAgain = () -> view.coordinators.put(4L,
        coordinator(TransactionState.ONGOING, 90, READY_2));
    leftOpenFor(PATIENCE);

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of("write again " + LEFT_OPEN), view.calls, "written again: duplicates");
  }

  @Test
  void looksAgainRightBeforeAbortingAndLeavesItWhenItClosedMeanwhile() {
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 91));
    view.afterWriteAgain = view.open::clear;
    leftOpenFor(PATIENCE);

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of("write again " + LEFT_OPEN), view.calls);
  }

  @Test
  void leavesATransactionOfAProducerTheCoordinatorsDoNotListToTheOperator() {
    // ListTransactions leaves out the ids this role may not describe: another application's
    // live transaction would look like this, so only an operator may judge it.
    leftOpenFor(PATIENCE.multipliedBy(10));

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), view.calls);
  }

  @Test
  void leavesAnotherApplicationsTransactionAloneEvenWhenItsCoordinatorIsDoneWithIt() {
    view.coordinators.put(4L, new CoordinatorView(4, (short) 91, "billing-app-7",
        TransactionState.COMPLETE_ABORT, Set.of(), 5_000));
    leftOpenFor(PATIENCE.multipliedBy(10));

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), view.calls);
  }

  @Test
  void aTransactionThatClosesAndAnotherThatOpensWaitsThePatienceAfresh() {
    view.coordinators.put(4L, coordinator(TransactionState.COMPLETE_COMMIT, 92));
    view.open.add(LEFT_OPEN);
    sweeper.sweep();
    clock.advance(PATIENCE.dividedBy(2));
    view.open.clear();
    sweeper.sweep();
    OpenTransaction next = new OpenTransaction(READY_2, 4, (short) 91, 0, 300);
    view.open.add(next);
    sweeper.sweep();
    clock.advance(PATIENCE.dividedBy(2));

    assertEquals(List.of(), sweeper.sweep(), "the next transaction has waited half the patience");
    clock.advance(PATIENCE.dividedBy(2));
    assertEquals(List.of(next), sweeper.sweep());
  }

  /** LEFT_OPEN is open when the sweeper first looks, and still open {@code age} later. */
  private void leftOpenFor(Duration age) {
    view.open.clear();
    view.open.add(LEFT_OPEN);
    assertEquals(List.of(), sweeper.sweep());
    clock.advance(age);
  }

  private static final class Counted implements HangingTransactionSweeper.Outcomes {
    final List<OpenTransaction> ended = new ArrayList<>();
    final List<OpenTransaction> held = new ArrayList<>();
    final List<Failure> failed = new ArrayList<>();

    @Override
    public void ended(OpenTransaction t, long writtenAgain) {
      ended.add(t);
    }

    @Override
    public void held(OpenTransaction t) {
      held.add(t);
    }

    @Override
    public void failed(Failure kind) {
      failed.add(kind);
    }
  }

  /** A cluster whose open transactions and coordinators the test sets. */
  private static final class FakeView implements TransactionsView {
    final List<OpenTransaction> open = new ArrayList<>();
    final Map<Long, CoordinatorView> coordinators = new HashMap<>();
    /** What was written again and aborted, in order. */
    final List<String> calls = new ArrayList<>();
    /** Whose records each write-again was to write again. */
    final List<String> writers = new ArrayList<>();
    Exception openFails;
    String openFailsOn;
    Exception coordinatorsFail;
    Exception writeAgainFails;
    Exception abortFails;
    Runnable afterWriteAgain = () -> { };

    @Override
    public List<OpenTransaction> open(Collection<String> topics) throws Exception {
      if (openFails != null) {
        throw openFails;
      }
      if (openFailsOn != null && topics.contains(openFailsOn)) {
        throw new IllegalStateException("Topic authorization failed for " + openFailsOn);
      }
      return open.stream().filter(t -> topics.contains(t.partition().topic())).toList();
    }

    @Override
    public Map<Long, CoordinatorView> coordinators(Set<Long> producerIds) throws Exception {
      if (coordinatorsFail != null) {
        throw coordinatorsFail;
      }
      Map<Long, CoordinatorView> known = new HashMap<>(coordinators);
      known.keySet().retainAll(producerIds);
      return known;
    }

    @Override
    public long writeAgain(OpenTransaction transaction, String transactionalId) throws Exception {
      if (writeAgainFails != null) {
        throw writeAgainFails;
      }
      calls.add("write again " + transaction);
      writers.add(transactionalId);
      afterWriteAgain.run();
      return 3;
    }

    @Override
    public void abort(OpenTransaction transaction) throws Exception {
      if (abortFails != null) {
        throw abortFails;
      }
      calls.add("abort " + transaction);
      open.remove(transaction);
    }
  }
}
