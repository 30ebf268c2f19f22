package io.sluice.dispatcher.pause;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import io.sluice.redis.operator.OperatorEntry;
import io.sluice.redis.operator.OperatorLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A dispatcher's view of the pauses: reads them every {@link #POLL} from the {@link PauseStore}
 * and keeps the last answer, so that {@link #current()} costs nothing on the consumer's thread.
 *
 * <p>Why polling, and every 250 ms: a pause must hold within a second on every dispatcher. A read
 * is one small script per dispatcher per poll (four a second each, whatever the traffic), and a
 * pause written just after a read is seen at the next: 250 ms, plus the read's time, plus the
 * consumer loop's turn (at most its 100 ms poll) before the held events leave their lane. One
 * read at a time: a read that has not answered is not stacked on.
 *
 * <p>While Redis does not answer, the last rules read stay in force ({@link PauseRules}); the
 * failure is logged once, and its recovery once.
 *
 * <p><b>The operator topic first.</b> Started with an {@link OperatorLog}, the watcher honours the
 * union of the topic's pauses (the durable home, written before Redis) and Redis's
 * ({@link PauseRules#union}): Redis losing its data (a {@code FLUSHALL}, a failover to an empty
 * replica) lifts nothing, and a dispatcher started while Redis is down holds every pause from its
 * first event, since {@link #start(PauseStore, OperatorLog)} returns only once the topic has been
 * read to its end (or {@link #LOG_PATIENCE} has passed: Kafka not answering, the dispatcher reads
 * no event either). A resume removes the pause from both, so it lifts once both have it removed.
 */
public final class PauseWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PauseWatcher.class);
  /** How often the pauses are read. */
  public static final Duration POLL = Duration.ofMillis(250);
  /** A read not answered within this is given up (and counted as failing). */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(2);
  /** Longest a start waits for the operator topic to be read. */
  public static final Duration LOG_PATIENCE = Duration.ofSeconds(30);

  private final Supplier<CompletionStage<PauseRules>> read;
  /** The operator topic's pauses now ({@link PauseRules#NONE} without a topic). */
  private final Supplier<PauseRules> durable;
  /** Closed with the watcher (the topic's reader it started), or nothing. */
  private final AutoCloseable owned;
  private final ScheduledExecutorService timer;
  private volatile PauseRules current = PauseRules.NONE;
  /** Redis's pauses as last read. */
  private volatile PauseRules cached = PauseRules.NONE;
  private volatile boolean failing;
  private boolean reading;

  private PauseWatcher(Supplier<CompletionStage<PauseRules>> read, Supplier<PauseRules> durable,
      AutoCloseable owned) {
    this.read = read;
    this.durable = durable;
    this.owned = owned;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "sluice-pause-watcher");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts polling {@code store}. */
  public static PauseWatcher start(PauseStore store) {
    return start(store::read);
  }

  /** Starts polling {@code read} (a {@link PauseStore}'s, or a test's). */
  public static PauseWatcher start(Supplier<CompletionStage<PauseRules>> read) {
    return start(read, () -> PauseRules.NONE, () -> {});
  }

  /**
   * Starts polling {@code store} and honouring {@code log}'s pauses too (see the class); returns
   * once {@code log} is read, or after {@link #LOG_PATIENCE}. The watcher closes {@code log}.
   */
  public static PauseWatcher start(PauseStore store, OperatorLog log) {
    try {
      if (!log.awaitRead(LOG_PATIENCE)) {
        LOG.warn("pauses: the operator topic was not read within {} s; its pauses are honoured "
            + "once it is", LOG_PATIENCE.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return start(store::read, durable(log), log);
  }

  /** Starts polling {@code read}, honouring {@code durable}'s pauses too; closes {@code owned}. */
  static PauseWatcher start(Supplier<CompletionStage<PauseRules>> read, Supplier<PauseRules> durable,
      AutoCloseable owned) {
    PauseWatcher watcher = new PauseWatcher(read, durable, owned);
    watcher.current = durable.get();
    watcher.timer.scheduleWithFixedDelay(watcher::poll, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
    return watcher;
  }

  /** The pauses of {@code log}'s view, made again only when it changed. */
  static Supplier<PauseRules> durable(OperatorLog log) {
    long[] seen = {-1};
    PauseRules[] rules = {PauseRules.NONE};
    return () -> {
      synchronized (seen) {
        long applied = log.view().applied();
        if (applied != seen[0]) {
          rules[0] = PauseStore.rules(log.view().all(OperatorEntry.Kind.PAUSE));
          seen[0] = applied;
        }
        return rules[0];
      }
    };
  }

  /** The pauses as last read (none before the first answer). */
  public PauseRules current() {
    return current;
  }

  /** True while the last read failed (the rules shown are older). */
  public boolean failing() {
    return failing;
  }

  private void poll() {
    synchronized (this) {
      if (reading) {
        return;
      }
      reading = true;
    }
    CompletionStage<PauseRules> answer;
    try {
      // A read Redis never answers must not stop the polling for good.
      answer = read.get().toCompletableFuture().orTimeout(READ_TIMEOUT.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (RuntimeException e) {
      answer = CompletableFuture.failedFuture(e);
    }
    answer.whenComplete((rules, error) -> {
      if (error != null) {
        if (!failing) {
          LOG.warn("pauses: could not read them from Redis ({}); the last read stays in force",
              error.toString());
        }
        failing = true;
      } else {
        if (failing) {
          LOG.info("pauses: read from Redis again");
        }
        failing = false;
        cached = rules;
      }
      PauseRules now = PauseRules.union(durable.get(), cached);
      if (!now.equals(current)) {
        LOG.info("pauses: now {}", now.isEmpty() ? "none" : now.all().stream()
            .map(p -> p.scope().toString()).toList());
      }
      current = now;
      // Last: the next read starts only once this answer is in force.
      synchronized (this) {
        reading = false;
      }
    });
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      owned.close();
    } catch (Exception e) {
      LOG.warn("pauses: closing the operator topic's reader failed", e);
    }
  }
}
