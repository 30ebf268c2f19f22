package io.sluice.dispatcher.pause;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
 */
public final class PauseWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PauseWatcher.class);
  /** How often the pauses are read. */
  public static final Duration POLL = Duration.ofMillis(250);
  /** A read not answered within this is given up (and counted as failing). */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(2);

  private final Supplier<CompletionStage<PauseRules>> read;
  private final ScheduledExecutorService timer;
  private volatile PauseRules current = PauseRules.NONE;
  private volatile boolean failing;
  private boolean reading;

  private PauseWatcher(Supplier<CompletionStage<PauseRules>> read) {
    this.read = read;
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
    PauseWatcher watcher = new PauseWatcher(read);
    watcher.timer.scheduleWithFixedDelay(watcher::poll, 0, POLL.toMillis(), TimeUnit.MILLISECONDS);
    return watcher;
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
      answer = java.util.concurrent.CompletableFuture.failedFuture(e);
    }
    answer.whenComplete((rules, error) -> {
      synchronized (this) {
        reading = false;
      }
      if (error != null) {
        if (!failing) {
          LOG.warn("pauses: could not read them from Redis ({}); the last read stays in force",
              error.toString());
        }
        failing = true;
        return;
      }
      if (failing) {
        LOG.info("pauses: read from Redis again");
      }
      failing = false;
      if (!rules.equals(current)) {
        LOG.info("pauses: now {}", rules.isEmpty() ? "none" : rules.all().stream()
            .map(p -> p.scope().toString()).toList());
      }
      current = rules;
    });
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
