package io.sluice.dispatcher.app.hanging;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@code interval}, looks for hanging transactions on the topics a role reads and aborts
 * them ({@link HangingTransactionJudge} says which and why), so a partition a broker restart left
 * behind a lost marker moves on instead of holding its records back for good. Each abort is
 * logged with the transaction and counted ({@code sluice_hanging_transactions_aborted_total}).
 *
 * <p>Two instances of a role may abort the same transaction; the second marker finds nothing
 * open and changes nothing. A look that fails (the broker is down) is logged at debug and tried
 * again at the next interval.
 */
public final class HangingTransactionSweeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HangingTransactionSweeper.class);

  private final TransactionsView view;
  private final List<String> topics;
  private final HangingTransactionJudge judge;
  private final Duration patience;
  private final Clock clock;
  private final Consumer<OpenTransaction> aborted;
  private final Predicate<String> ours;
  /** Open transactions too long that are not Sluice's to abort, already said: said once each. */
  private final Set<OpenTransaction> reported = new HashSet<>();
  private ScheduledExecutorService timer;

  /**
   * @param ours which transactional ids are Sluice's (only theirs are ever aborted)
   */
  public HangingTransactionSweeper(TransactionsView view, List<String> topics, Duration patience,
      Clock clock, Predicate<String> ours, Consumer<OpenTransaction> aborted) {
    this.ours = ours;
    this.view = view;
    this.topics = List.copyOf(topics);
    this.judge = new HangingTransactionJudge(patience);
    this.patience = patience;
    this.clock = clock;
    this.aborted = aborted;
  }

  /** Sweeps every {@code interval} on a daemon thread of its own until closed. */
  public HangingTransactionSweeper start(Duration interval) {
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-hanging-transactions");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::sweepQuietly, interval.toMillis(), interval.toMillis(),
        TimeUnit.MILLISECONDS);
    return this;
  }

  private void sweepQuietly() {
    try {
      sweep();
    } catch (Exception e) {
      LOG.debug("hanging transactions: look failed ({}); trying again", e.toString());
    }
  }

  /** One look: the transactions aborted by it. */
  public List<OpenTransaction> sweep() throws Exception {
    List<OpenTransaction> tooLong = judge.openTooLong(view.open(topics), clock.millis());
    reported.retainAll(tooLong);
    if (tooLong.isEmpty()) {
      return List.of();
    }
    Set<Long> producers = tooLong.stream().map(OpenTransaction::producerId)
        .collect(Collectors.toSet());
    Map<Long, CoordinatorView> coordinators = view.coordinators(producers);
    List<OpenTransaction> abortedNow = new ArrayList<>();
    for (OpenTransaction t : tooLong) {
      Optional<CoordinatorView> coordinator = Optional.ofNullable(coordinators.get(t.producerId()));
      HangingTransactionJudge.Verdict verdict = HangingTransactionJudge.judge(t, coordinator, ours);
      if (verdict == HangingTransactionJudge.Verdict.NOT_OURS && reported.add(t)) {
        // Said once, for an operator to judge.
        LOG.warn("transaction open on {} since offset {} for over {} s, of producer {} ({}): "
                + "not Sluice's to abort; if no marker is coming, read_committed consumers "
                + "stand at it: see kafka-transactions.sh find-hanging", t.partition(),
            t.startOffset(), patience.toSeconds(), t.producerId(),
            coordinator.map(CoordinatorView::transactionalId).orElse("not listed"));
      }
      if (verdict != HangingTransactionJudge.Verdict.HANGING) {
        continue;
      }
      try {
        view.abort(t);
      } catch (Exception e) {
        // Said loudly: the partition stays held back until an abort goes through (on a cluster
        // with ACLs the role's principal needs Alter on the topic to write the marker).
        LOG.warn("hanging transaction on {}: abort failed ({}); trying again in the next look",
            t, e.toString());
        continue;
      }
      LOG.warn("hanging transaction on {}: its coordinator owes the partition no marker, so "
          + "read_committed consumers stood at offset {} for good; aborted it", t,
          t.startOffset());
      aborted.accept(t);
      abortedNow.add(t);
    }
    return abortedNow;
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
