package io.sluice.app.admin;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.concurrent.Semaphore;

/**
 * One scan of the topics at a time per instance, whichever route asks ({@link DeadLetterRoutes},
 * {@link EventRoutes}): the ops port has two threads and a scan holds one for up to
 * {@link DeadLetterRoutes#SCAN_TIMEOUT}, so {@code /metrics} and {@code /admin/status} always
 * keep the other. A request that finds a scan running is refused at once with 429.
 */
final class TopicScans {
  /** A scan that answers its request. */
  interface Scan {
    void run() throws IOException;
  }

  private final Semaphore one = new Semaphore(1);

  /** Runs {@code scan}, or answers 429 ({@code Retry-After: 10}) while another runs. */
  void run(HttpExchange exchange, Scan scan) throws IOException {
    if (!one.tryAcquire()) {
      exchange.getResponseHeaders().set("Retry-After", "10");
      AdminApi.respond(exchange, 429, AdminApi.error("another request is reading the topics "
          + "(dead letters or an event's journey); try again when it is done"));
      return;
    }
    try {
      scan.run();
    } finally {
      one.release();
    }
  }

  /** Whether a scan runs now (for tests). */
  boolean busy() {
    return one.availablePermits() == 0;
  }
}
