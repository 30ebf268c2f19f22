package io.sluice.dispatcher.app.hanging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.embedded.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The case of the chaos run: the gate's producer 4 left a transaction open on sluice.ready-2 at
 * offset 261 when the broker was killed; the restarted coordinator wrote it complete without a
 * marker there, and the dispatchers stood at offset 261 while 97 events waited behind it.
 */
class HangingTransactionSweeperTest {
  private static final TopicPartition READY_2 = new TopicPartition("sluice.ready", 2);
  private static final OpenTransaction LEFT_OPEN =
      new OpenTransaction(READY_2, 4, (short) 90, 0, 261);
  private static final Duration PATIENCE = Duration.ofSeconds(30);
  /** Sluice's transactional ids start so; the gate's producer 4 had one. */
  private static final String GATE = "sluice-gate-";
  private static final String PRODUCER_4 = GATE + "32d2eaa9-1";

  private final FakeClock clock = FakeClock.atMillis(1_000_000);
  private final FakeView view = new FakeView();
  private final List<OpenTransaction> counted = new ArrayList<>();
  private final HangingTransactionSweeper sweeper = new HangingTransactionSweeper(view,
      List.of("sluice.ready"), PATIENCE, clock, id -> id.startsWith(GATE), counted::add);

  @Test
  void abortsATransactionItsCoordinatorCompletedWithoutAMarkerOnceOpenForThePatience()
      throws Exception {
    view.open.add(LEFT_OPEN);
    view.coordinators.put(4L, new CoordinatorView(4, PRODUCER_4, false, Set.of()));

    assertEquals(List.of(), sweeper.sweep(), "first seen now: not open for the patience yet");
    clock.advance(PATIENCE.minusMillis(1));
    assertEquals(List.of(), sweeper.sweep());
    clock.advanceMillis(1);

    assertEquals(List.of(LEFT_OPEN), sweeper.sweep());
    assertEquals(List.of(LEFT_OPEN), view.aborted);
    assertEquals(List.of(LEFT_OPEN), counted);
  }

  @Test
  void leavesATransactionOfAProducerTheCoordinatorsDoNotListToTheOperator() throws Exception {
    // ListTransactions leaves out the ids this role may not describe: another application's
    // live transaction would look like this, so only an operator may judge it.
    leftOpenFor(PATIENCE.multipliedBy(10));

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), view.aborted);
  }

  @Test
  void leavesAnotherApplicationsTransactionAloneEvenWhenItsCoordinatorIsDoneWithIt()
      throws Exception {
    view.coordinators.put(4L, new CoordinatorView(4, "billing-app-7", false, Set.of()));
    leftOpenFor(PATIENCE.multipliedBy(10));

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), view.aborted);
  }

  @Test
  void leavesATransactionWhoseCoordinatorStillOwesThePartitionAMarker() throws Exception {
    // Ongoing or prepared, with this partition: the marker it sends ends the open transaction.
    view.coordinators.put(4L, new CoordinatorView(4, PRODUCER_4, true, Set.of(READY_2)));
    leftOpenFor(PATIENCE.multipliedBy(10));

    assertEquals(List.of(), sweeper.sweep());
    assertEquals(List.of(), view.aborted);
  }

  @Test
  void abortsWhenTheProducersCurrentTransactionLeavesThePartitionOut() throws Exception {
    view.coordinators.put(4L, new CoordinatorView(4, PRODUCER_4, true,
        Set.of(new TopicPartition("sluice.delay.1s", 0))));
    leftOpenFor(PATIENCE);

    assertEquals(List.of(LEFT_OPEN), sweeper.sweep());
  }

  @Test
  void aTransactionThatClosesAndAnotherThatOpensWaitsThePatienceAfresh() throws Exception {
    view.coordinators.put(4L, new CoordinatorView(4, PRODUCER_4, false, Set.of()));
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
  private void leftOpenFor(Duration age) throws Exception {
    view.open.add(LEFT_OPEN);
    assertEquals(List.of(), sweeper.sweep());
    clock.advance(age);
  }

  /** A cluster whose open transactions and coordinators the test sets. */
  private static final class FakeView implements TransactionsView {
    final List<OpenTransaction> open = new ArrayList<>();
    final Map<Long, CoordinatorView> coordinators = new HashMap<>();
    final List<OpenTransaction> aborted = new ArrayList<>();

    @Override
    public List<OpenTransaction> open(Collection<String> topics) {
      return open.stream().filter(t -> topics.contains(t.partition().topic())).toList();
    }

    @Override
    public Map<Long, CoordinatorView> coordinators(Set<Long> producerIds) {
      Map<Long, CoordinatorView> known = new HashMap<>(coordinators);
      known.keySet().retainAll(producerIds);
      return known;
    }

    @Override
    public void abort(OpenTransaction transaction) {
      aborted.add(transaction);
      open.remove(transaction);
    }
  }
}
