package io.sluice.lab.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Side A of the {@code dispatch} scenario: the JVM's {@code java.net.http.HttpClient} alone, with
 * nothing of Sluice's around it, keeping {@code concurrency} POSTs in flight. Each of
 * {@code concurrency} chains sends a call and, once answered, the next; destinations are taken
 * in turn, so each of {@code n} destinations has about {@code concurrency / n} calls in flight,
 * the dispatcher's {@code maxInFlight} per endpoint when {@code concurrency} is that times
 * {@code n}. The client is built as the dispatcher builds its own (HTTP/1.1, the same exchange
 * threads), so the two sides differ by what Sluice does around a call, not by the transport.
 */
final class BareLoop implements AutoCloseable {
  private final HttpClient client;
  private final List<URI> destinations;
  private final byte[] body;
  private final AtomicLong next = new AtomicLong();
  private final LongAdder failed = new LongAdder();
  private final List<CompletableFuture<Void>> chains = new ArrayList<>();
  private volatile boolean running = true;

  BareLoop(HttpClient client, List<URI> destinations, byte[] body) {
    this.client = client;
    this.destinations = List.copyOf(destinations);
    this.body = body.clone();
  }

  /** Starts {@code concurrency} chains of calls; they run until {@link #close}. */
  BareLoop start(int concurrency) {
    for (int i = 0; i < concurrency; i++) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      chains.add(done);
      send(done);
    }
    return this;
  }

  private void send(CompletableFuture<Void> done) {
    if (!running) {
      done.complete(null);
      return;
    }
    long n = next.getAndIncrement();
    URI to = destinations.get((int) (n % destinations.size()));
    HttpRequest request = HttpRequest.newBuilder(to)
        .timeout(Duration.ofSeconds(5))
        .header("Content-Type", "application/json")
        .header("Idempotency-Key", "bare-" + n)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
    client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
        .whenComplete((answer, error) -> {
          if (error != null || answer.statusCode() != 200) {
            failed.increment();
          }
          send(done);
        });
  }

  /** Calls that failed or were not answered 200 (0 in a sound run). */
  long failed() {
    return failed.sum();
  }

  /** Stops sending and waits for every call in flight to end. */
  @Override
  public void close() {
    running = false;
    CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).orTimeout(30,
        TimeUnit.SECONDS).exceptionally(e -> null).join();
  }
}
