package io.sluice.app.hanging;

import io.sluice.app.hanging.HangingTransactionJudge.Verdict;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@code interval}, looks for hanging transactions on the topics a role reads and ends
 * them ({@link HangingTransactionJudge} says which and how), so a partition a broker restart left
 * behind a lost marker moves on instead of holding its records back for good. On a data topic
 * the open transaction's records are written again before it is aborted, so a transaction its
 * coordinator committed is not lost; on {@code __consumer_offsets} it is aborted. Each end is
 * logged with the transaction and counted.
 *
 * <p>Right before the abort it looks again: the same transaction still open on the partition
 * (producer, epoch, first offset) and the coordinator saying the same of the producer (state,
 * epoch, start); anything else, and the next look judges afresh (records already written again
 * are then duplicates, never a loss).
 *
 * <p>Nothing it cannot do goes unsaid: each kind of failure ({@link Failure}) is logged at WARN
 * the first time, with what the role's principal needs, and again only after it recovered and
 * failed anew; every failure is counted; {@link #status()} says what is failing for {@code
 * /health}. A transaction it may not end (another application's, or a coordinator state whose
 * meaning is unknown) is logged once at WARN for an operator.
 *
 * <p>Two instances of a role may end the same transaction; the second writes its records again
 * too (duplicates) and its marker finds nothing open.
 */
public final class HangingTransactionSweeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HangingTransactionSweeper.class);

  /** What can fail, and what a role's principal needs on a cluster with ACLs for it not to. */
  public enum Failure {
    LOOK("describing the topics and their producers (Read and Describe on each topic it reads, "
        + "__consumer_offsets included: DescribeProducers needs Read)"),
    COORDINATORS("listing and describing transactions (Describe on the transactional ids "
        + "the gate's, the relays' and the sweepers' producers use)"),
    WRITE_AGAIN("writing a hanging transaction's records again (Read on the topic; Write on "
        + "the topic and on the sweeper's transactional id)"),
    ABORT("aborting a hanging transaction (Alter on the cluster since Kafka 3.8, KIP-1037, "
        + "or ClusterAction on the cluster)");

    private final String needs;

    Failure(String needs) {
      this.needs = needs;
    }

    /** What failed and what the principal needs for it, for a log line or {@code /health}. */
    public String needs() {
      return needs;
    }
  }

  /** Where the sweeper reports what it did and what failed (metrics). */
  public interface Outcomes {
    /** {@code t} was ended: {@code writtenAgain} of its partition's records first written again. */
    void ended(OpenTransaction t, long writtenAgain);

    /** {@code t} is held for an operator (said once per transaction). */
    void held(OpenTransaction t);

    /** One failure of {@code kind}. */
    void failed(Failure kind);
  }

  /** A transaction left alone as LIVE for this many patiences is told of to an operator. */
  static final int LIVE_PATIENCE_FACTOR = 10;

  private final TransactionsView view;
  private final List<String> topics;
  private final HangingTransactionJudge judge;
  private final Duration patience;
  private final Clock clock;
  private final Outcomes outcomes;
  private final Predicate<String> ours;
  /** Open transactions too long that are for an operator, already said: said once each. */
  private final Set<OpenTransaction> said = ConcurrentHashMap.newKeySet();
  /**
   * Open transactions whose records this sweeper already wrote again, with how many: an abort
   * that failed is tried again without writing them once more. Written again at every look, the
   * copies (which lie in the range) would be copied too, more each time, for as long as the abort
   * fails (an ACL missing, say). Forgotten with the process: a restart writes them again once.
   */
  private final Map<OpenTransaction, Long> writtenAgain = new ConcurrentHashMap<>();
  /** The kinds failing now, with what the first failure said: each said once until it recovers. */
  private final Map<Failure, String> failing = new ConcurrentHashMap<>();
  private ScheduledExecutorService timer;

  /**
   * @param ours which transactional ids are Sluice's (only theirs are ever ended)
   */
  public HangingTransactionSweeper(TransactionsView view, List<String> topics, Duration patience,
      Clock clock, Predicate<String> ours, Outcomes outcomes) {
    this.ours = ours;
    this.view = view;
    this.topics = List.copyOf(topics);
    this.judge = new HangingTransactionJudge(patience);
    this.patience = patience;
    this.clock = clock;
    this.outcomes = outcomes;
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
    } catch (RuntimeException e) {
      failed(Failure.LOOK, e);
    }
  }

  /** One look: the transactions ended by it. Failures are reported, never thrown. */
  public List<OpenTransaction> sweep() {
    // Topic by topic: a principal denied one (Read on __consumer_offsets, which DescribeProducers
    // needs, is a grant many clusters withhold) still has the others swept.
    List<OpenTransaction> openNow = new ArrayList<>();
    Exception lookFailed = null;
    for (String topic : topics) {
      try {
        openNow.addAll(view.open(List.of(topic)));
      } catch (Exception e) {
        lookFailed = lookFailed == null ? new IllegalStateException(topic + ": " + e, e)
            : lookFailed;
      }
    }
    if (lookFailed == null) {
      recovered(Failure.LOOK);
    } else {
      failed(Failure.LOOK, lookFailed);
    }
    List<OpenTransaction> tooLong = judge.openTooLong(openNow, clock.millis());
    said.retainAll(tooLong);
    writtenAgain.keySet().retainAll(tooLong);
    if (tooLong.isEmpty()) {
      return List.of();
    }
    Set<Long> producers = tooLong.stream().map(OpenTransaction::producerId)
        .collect(Collectors.toSet());
    Map<Long, CoordinatorView> coordinators;
    try {
      coordinators = view.coordinators(producers);
    } catch (Exception e) {
      failed(Failure.COORDINATORS, e);
      return List.of();
    }
    recovered(Failure.COORDINATORS);
    List<OpenTransaction> ended = new ArrayList<>();
    for (OpenTransaction t : tooLong) {
      Optional<CoordinatorView> coordinator = Optional.ofNullable(coordinators.get(t.producerId()));
      Verdict verdict = HangingTransactionJudge.judge(t, coordinator, ours);
      switch (verdict) {
        case NOT_OURS -> tellOnce(t, "transaction open on " + t.partition() + " since offset "
            + t.startOffset() + " for over " + patience.toSeconds() + " s, of producer "
            + t.producerId() + " (" + coordinator.map(CoordinatorView::transactionalId)
                .orElse("not listed") + "): not Sluice's to end; if no marker is coming, "
            + "read_committed consumers stand at it: see kafka-transactions.sh find-hanging");
        case HOLD -> {
          if (tellOnce(t, "hanging transaction on " + t + " of " + coordinator.get()
              .transactionalId() + ": its coordinator reports state " + coordinator.get().state()
              + ", whose meaning Sluice does not know, so it neither writes its records again nor "
              + "aborts it, and the partition stays held back. Operator: kafka-transactions.sh "
              + "describe --transactional-id " + coordinator.get().transactionalId()
              + "; if it committed, copy the partition's records from offset " + t.startOffset()
              + " (read_uncommitted) into the same partition, then kafka-transactions.sh abort "
              + "--topic " + t.partition().topic() + " --partition " + t.partition().partition()
              + " --start-offset " + t.startOffset())) {
            outcomes.held(t);
          }
        }
        case ABORT, WRITE_AGAIN_THEN_ABORT -> {
          end(t, coordinator.get(), verdict).ifPresent(n -> {
            outcomes.ended(t, n);
            ended.add(t);
          });
        }
        case LIVE -> {
          // Under transaction version 1 a producer that stays busy in transactions of one epoch
          // and never writes the partition again keeps it held: an operator must learn of it.
          long now = clock.millis();
          if (now - judge.openSince(t, now) >= patience.toMillis() * LIVE_PATIENCE_FACTOR
              && tellOnce(t, "transaction open on " + t + " for over "
                  + patience.toSeconds() * LIVE_PATIENCE_FACTOR + " s, of "
                  + coordinator.get().transactionalId() + ", which is in a transaction of the "
                  + "same epoch that leaves the partition out (transaction version 1): Sluice "
                  + "does not abort it, since the abort would cut what the producer may write "
                  + "there next; the partition stays held back until that producer writes it "
                  + "again or is restarted. Operator: restart the role that owns "
                  + coordinator.get().transactionalId() + ", or upgrade the cluster to "
                  + "transaction version 2")) {
            outcomes.held(t);
          }
        }
        default -> { } // OWED: its marker is coming.
      }
    }
    return ended;
  }

  /**
   * Writes {@code t}'s records again when the verdict says so, looks again, and aborts it: how
   * many records were written again, or empty when it was not aborted (a failure, said; or the
   * look again saw something else).
   */
  private Optional<Long> end(OpenTransaction t, CoordinatorView seen, Verdict verdict) {
    long written = 0;
    if (verdict == Verdict.WRITE_AGAIN_THEN_ABORT && !writtenAgain.containsKey(t)) {
      try {
        written = view.writeAgain(t, seen.transactionalId());
      } catch (Exception e) {
        failed(Failure.WRITE_AGAIN, e);
        return Optional.empty();
      }
      recovered(Failure.WRITE_AGAIN);
      writtenAgain.put(t, written);
    } else if (verdict == Verdict.WRITE_AGAIN_THEN_ABORT) {
      written = writtenAgain.get(t);
    }
    try {
      if (!unchanged(t, seen, verdict)) {
        LOG.info("hanging transaction on {}: changed since the look ({} records written again "
            + "are duplicates); judging it again at the next look", t, written);
        return Optional.empty();
      }
    } catch (Exception e) {
      failed(Failure.LOOK, e);
      return Optional.empty();
    }
    try {
      view.abort(t);
    } catch (Exception e) {
      failed(Failure.ABORT, e);
      return Optional.empty();
    }
    recovered(Failure.ABORT);
    LOG.warn("hanging transaction on {}: its coordinator ({} {}) owes the partition no marker, so "
        + "read_committed consumers stood at offset {} for good; {}aborted it", t,
        seen.transactionalId(), seen.state(), t.startOffset(), verdict == Verdict.ABORT ? ""
            : "wrote its " + written + " records from there again, then ");
    return Optional.of(written);
  }

  /**
   * The look right before an abort: {@code t} still open on its partition, and its coordinator
   * saying what it said ({@code seen}: same epoch, state and start) and so the same verdict.
   */
  private boolean unchanged(OpenTransaction t, CoordinatorView seen, Verdict verdict)
      throws Exception {
    if (!view.open(List.of(t.partition().topic())).contains(t)) {
      return false;
    }
    CoordinatorView now = view.coordinators(Set.of(t.producerId())).get(t.producerId());
    return now != null && now.producerEpoch() == seen.producerEpoch()
        && now.state() == seen.state() && now.startMillis() == seen.startMillis()
        && Objects.equals(now.transactionalId(), seen.transactionalId())
        && HangingTransactionJudge.judge(t, Optional.of(now), ours) == verdict;
  }

  /** Logs {@code message} at WARN the first time {@code t} is told of: true then. */
  private boolean tellOnce(OpenTransaction t, String message) {
    if (!said.add(t)) {
      return false;
    }
    LOG.warn(message);
    return true;
  }

  private void failed(Failure kind, Exception e) {
    outcomes.failed(kind);
    String what = e.toString();
    if (failing.putIfAbsent(kind, what) == null) {
      // Said once per kind until it recovers: on a cluster with ACLs it fails on every look.
      LOG.warn("hanging transactions: {} failed ({}); the role's principal needs {}. Hanging "
          + "transactions on the topics it reads are not ended while this fails; trying again "
          + "at each look", kind.name().toLowerCase(Locale.ROOT), what, kind.needs());
    } else {
      LOG.debug("hanging transactions: {} failed again ({})", kind, what);
    }
  }

  private void recovered(Failure kind) {
    if (failing.remove(kind) != null) {
      LOG.info("hanging transactions: {} works again", kind.name().toLowerCase(Locale.ROOT));
    }
  }

  /** The kinds failing now, each with its first error (empty when all works). */
  public Map<Failure, String> failing() {
    return Map.copyOf(failing);
  }

  /**
   * For {@code /health}: {@code "sweeping N topics"}, with what fails and what is held for an
   * operator when anything is.
   */
  public String status() {
    StringJoiner s = new StringJoiner("; ");
    s.add("sweeping " + topics.size() + " topics");
    failing.forEach((kind, error) -> s.add(kind.name().toLowerCase(Locale.ROOT)
        + " failing (" + error + "): needs " + kind.needs()));
    if (!said.isEmpty()) {
      s.add(said.size() + " open too long for an operator to judge (see the log)");
    }
    return s.toString();
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
