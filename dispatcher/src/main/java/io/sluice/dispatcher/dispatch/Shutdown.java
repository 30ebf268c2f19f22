package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.dispatch.lane.ProviderLane;
import io.sluice.dispatcher.dispatch.settlement.SettlementWriter;
import io.sluice.dispatcher.provider.Provider;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a dispatcher stops: {@link #cleanly} (no new calls, the calls in flight finish, their
 * settlements are written and committed, queued events left for the next owner) or
 * {@link #abruptly}, as a crash would (nothing more written or committed, every client closed at
 * once). Either way every client, lane and provider is closed.
 */
record Shutdown(Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer,
    Collection<Provider> providers, Lanes lanes, Books books, SettlementWriter writer,
    ExecutorService sender, ScheduledExecutorService timer, LongSupplier nanoTime) {
  /** How long a clean stop waits for the settlements handed so far to reach the producer. */
  private static final long SENDER_MILLIS = 10_000;

  private static final Logger LOG = LoggerFactory.getLogger(Shutdown.class);

  /** Waits at most {@code callsMillis} for the calls in flight, then commits what settled. */
  void cleanly(long callsMillis) {
    List<ProviderLane> all = lanes.all();
    lanes.closeLanes();
    long deadline = nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(callsMillis);
    try {
      while (all.stream().anyMatch(l -> l.inFlight() > 0) && nanoTime.getAsLong() - deadline < 0) {
        books.apply();
        // Shutdown only: wait for the last calls to come back, checking every 10 ms.
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
      writer.flush(SENDER_MILLIS);
      books.apply();
      books.commitNow();
    } catch (RuntimeException e) {
      LOG.warn("dispatcher: could not commit on shutdown ({}); the next owner re-reads from the "
          + "last commit", e.toString());
    } finally {
      writer.close();
      sender.shutdownNow();
      timer.shutdownNow();
      lanes.close();
      closeQuietly(consumer::close);
      closeQuietly(producer::close);
      providers.forEach(p -> closeQuietly(p::close));
    }
  }

  /** Closes everything at once; whatever was read and not committed is read again by the next owner. */
  void abruptly() {
    writer.close();
    sender.shutdownNow();
    timer.shutdownNow();
    lanes.close();
    closeQuietly(() -> producer.close(Duration.ZERO));
    closeQuietly(() -> consumer.close(Duration.ZERO));
    providers.forEach(p -> closeQuietly(p::close));
  }

  private static void closeQuietly(Runnable close) {
    try {
      close.run();
    } catch (RuntimeException e) {
      LOG.debug("dispatcher: close failed", e);
    }
  }
}
