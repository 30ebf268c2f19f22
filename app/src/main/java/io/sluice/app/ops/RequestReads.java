package io.sluice.app.ops;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which of the ops port's exchanges have been reading their request for too long: the decision
 * behind the port's read deadline, pure, time passed in (nanoseconds of one monotonic clock).
 *
 * <p>Why a deadline at all: the JDK's server reads a request's line and headers on the executor's
 * thread, blocking, before any handler (or token check) runs. A client that sends one byte and
 * then nothing holds that thread for as long as its socket stays open. An exchange is therefore
 * <em>reading</em> from the moment its thread starts it until its handler is entered, and again
 * while its handler reads the request body; it is <em>handling</em> otherwise. An exchange still
 * reading at {@code start + deadline} is overdue: its socket is cut. Time spent handling (a
 * {@code /ready} that waits on Redis, an admin call scanning a topic) never counts, so a slow
 * dependency is never mistaken for a slow client; but the deadline runs from the start of the
 * exchange, so a client cannot stretch it by trickling a byte now and then.
 *
 * <p>Not thread-safe; {@link OpsExchanges} holds the lock.
 */
final class RequestReads {
  private final long deadlineNanos;
  private final Map<Long, Exchange> exchanges = new HashMap<>();

  private static final class Exchange {
    final long startNanos;
    boolean reading = true;

    Exchange(long startNanos) {
      this.startNanos = startNanos;
    }
  }

  RequestReads(long deadlineNanos) {
    if (deadlineNanos <= 0) {
      throw new IllegalArgumentException("deadline must be above zero, got " + deadlineNanos);
    }
    this.deadlineNanos = deadlineNanos;
  }

  /** Exchange {@code id} started at {@code nowNanos}: it reads its request line and headers. */
  void started(long id, long nowNanos) {
    exchanges.put(id, new Exchange(nowNanos));
  }

  /** Exchange {@code id} reads (true: its head or body) or handles (false). */
  void reading(long id, boolean reading) {
    Exchange exchange = exchanges.get(id);
    if (exchange != null) {
      exchange.reading = reading;
    }
  }

  /** Is exchange {@code id} reading now? False once ended. */
  boolean isReading(long id) {
    Exchange exchange = exchanges.get(id);
    return exchange != null && exchange.reading;
  }

  /** Exchange {@code id} ended (answered, failed or cut). */
  void ended(long id) {
    exchanges.remove(id);
  }

  /** The exchanges reading at {@code nowNanos} that started more than the deadline before. */
  List<Long> overdue(long nowNanos) {
    List<Long> overdue = new ArrayList<>();
    exchanges.forEach((id, exchange) -> {
      if (exchange.reading && nowNanos - exchange.startNanos >= deadlineNanos) {
        overdue.add(id);
      }
    });
    return overdue;
  }

  /**
   * The exchange reading now that started first, or empty if none reads: the one cut to make
   * room when the port is full (the likeliest slow loris; a probe's head is read at once).
   */
  Optional<Long> oldestReading() {
    Long oldest = null;
    long oldestStart = 0;
    for (Map.Entry<Long, Exchange> e : exchanges.entrySet()) {
      if (e.getValue().reading && (oldest == null || e.getValue().startNanos - oldestStart < 0)) {
        oldest = e.getKey();
        oldestStart = e.getValue().startNanos;
      }
    }
    return Optional.ofNullable(oldest);
  }

  /** Exchanges started and not ended. */
  int open() {
    return exchanges.size();
  }
}
