package io.sluice.gate.limiter;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A store that answers a blocking call at once and a renewal ({@link AcquireRequest#renewal},
 * need 0) only when the test delivers it, decided then on the bucket math at the clock of that
 * moment, as Redis decides a command when it runs it, not when it was sent. Undelivered renewals
 * are delivered after {@link #LATEST_MILLIS} of real time by a daemon thread, so that an event
 * waiting for one (its lease run dry) waits a little, as it would for Redis. Close it to stop
 * that thread.
 */
final class LateRenewals implements TokenBucketStore, AutoCloseable {
  static final long LATEST_MILLIS = 2;

  private record Pending(BucketKey key, BucketSpec spec, AcquireRequest request,
                         CompletableFuture<Acquisition> answer, long sentAtMillis) {}

  private final InMemoryTokenBucketStore buckets;
  private final Thread late;
  private final List<Pending> pending = new ArrayList<>();
  private int blocking;
  private int renewals;

  LateRenewals(InMemoryTokenBucketStore buckets) {
    this.buckets = buckets;
    late = new Thread(() -> {
      while (true) {
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          return;
        }
        deliver(p -> System.currentTimeMillis() - p.sentAtMillis() >= LATEST_MILLIS);
      }
    }, "late-renewals");
    late.setDaemon(true);
    late.start();
  }

  @Override
  public synchronized CompletionStage<Acquisition> acquire(BucketKey key, BucketSpec spec, AcquireRequest request) {
    if (request.need() > 0) {
      blocking++;
      return buckets.acquire(key, spec, request);
    }
    renewals++;
    CompletableFuture<Acquisition> answer = new CompletableFuture<>();
    pending.add(new Pending(key, spec, request, answer, System.currentTimeMillis()));
    return answer;
  }

  /** Stops the thread that delivers late renewals. */
  @Override
  public void close() {
    late.interrupt();
  }

  /** Delivers every renewal sent so far. */
  void deliverAll() {
    deliver(p -> true);
  }

  /** Delivers each renewal sent so far with probability {@code p}. */
  void deliverSome(Random random, double p) {
    deliver(x -> random.nextDouble() < p);
  }

  synchronized int blockingCalls() {
    return blocking;
  }

  synchronized int renewals() {
    return renewals;
  }

  private synchronized void deliver(java.util.function.Predicate<Pending> which) {
    for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
      Pending p = it.next();
      if (which.test(p)) {
        it.remove();
        buckets.acquire(p.key(), p.spec(), p.request()).thenAccept(p.answer()::complete);
      }
    }
  }
}
