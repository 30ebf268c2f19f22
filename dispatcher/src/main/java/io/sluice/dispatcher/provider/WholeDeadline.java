package io.sluice.dispatcher.provider;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One deadline for a whole exchange: the answer's headers <em>and body</em> within
 * {@code timeout} of sending, or the exchange is cancelled and fails with
 * {@link HttpTimeoutException}.
 *
 * <p>Why: {@code HttpRequest.timeout} ends when the headers arrive. An endpoint that answers its
 * headers at once and then trickles its body a byte a second held the call (and with it the
 * lane's in-flight room and its partition's commit) as long as it liked: with a 1 s timeout, a
 * body trickled over 5 s ended the call {@code 200} after 5,007 ms. Cancelling the future
 * {@code sendAsync} returned cancels the exchange and closes its connection (JDK 16+), so a
 * trickling connection is never handed to the next call.
 *
 * <p>A deadline that fires completes the call on the common pool (as the JDK hands answers on),
 * never on the one timer thread every call's deadline shares; a call answered in time cancels
 * its timer, so pending timers are the calls in flight.
 */
public final class WholeDeadline {
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private WholeDeadline() {}

  /** {@code client.sendAsync(request, body)}, whole within {@code timeout}. */
  public static <T> CompletableFuture<HttpResponse<T>> send(HttpClient client,
      HttpRequest request, HttpResponse.BodyHandler<T> body, Duration timeout) {
    CompletableFuture<HttpResponse<T>> sent = client.sendAsync(request, body);
    CompletableFuture<HttpResponse<T>> whole = new CompletableFuture<>();
    ScheduledFuture<?> deadline = TIMER.schedule(() -> ForkJoinPool.commonPool().execute(() -> {
      if (whole.completeExceptionally(new HttpTimeoutException("no whole answer (headers and body)"
          + " within " + timeout.toMillis() + " ms"))) {
        sent.cancel(true);
      }
    }), timeout.toNanos(), TimeUnit.NANOSECONDS);
    sent.whenComplete((response, error) -> {
      deadline.cancel(false);
      if (error == null) {
        whole.complete(response);
      } else {
        whole.completeExceptionally(error);
      }
    });
    return whole;
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "sluice-http-deadline");
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }
}
