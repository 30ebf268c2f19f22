package io.sluice.dispatcher.dispatch;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for the producer's writes to be acknowledged, at most {@code millis}. A rebalance callback
 * runs inside {@code poll}: the producer's own {@code flush()} can block for its whole delivery
 * timeout (2 minutes by default) while a broker is away, long enough for the group to give the
 * partitions to another member before this one has told anyone what it settled or delivered.
 * Past the bound the hand-over goes on without the writes still pending: their records are read
 * again by the next owner, as after a crash.
 *
 * <p>The flush runs on one daemon thread, which ends when idle for a second (nothing to close);
 * a flush still blocked from an earlier call is waited on again (a later flush would wait for the
 * same writes anyway).
 */
final class BoundedFlush implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(BoundedFlush.class);

  private final Runnable flush;
  private final long millis;
  private final ExecutorService flusher = new ThreadPoolExecutor(0, 1, 1, TimeUnit.SECONDS,
      new LinkedBlockingQueue<>(), r -> {
        Thread t = new Thread(r, "sluice-dispatcher-flush");
        t.setDaemon(true);
        return t;
      });

  BoundedFlush(Runnable flush, long millis) {
    this.flush = flush;
    this.millis = millis;
  }

  @Override
  public void run() {
    Future<?> done = flusher.submit(flush);
    try {
      done.get(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (TimeoutException e) {
      LOG.info("dispatcher: writes not acknowledged within {} ms at a hand-over; the next owner "
          + "reads their records again", millis);
    } catch (ExecutionException e) {
      LOG.debug("dispatcher: flush failed ({})", e.getCause().toString());
    }
  }
}
