package io.sluice.lab.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The receiver of the {@code dispatch} scenario, the same for the bare loop and the dispatcher:
 * the JDK's {@code com.sun.net.httpserver} on loopback with a fixed pool of threads, reading each
 * request's body and answering 200 with no body at once, keeping each call's arrival instant
 * ({@code System.nanoTime()}) by path. It runs in the bench's JVM; its threads are named
 * {@value #THREADS}{@code <n>} so that {@link CpuSnapshot} can count its CPU apart from the
 * sender's. Nothing it does depends on who calls: both sides pay it alike.
 */
final class DispatchReceiver implements AutoCloseable {
  /** Prefix of the names of the threads that answer (the server's own dispatcher thread aside). */
  static final String THREADS = "receiver-";

  private final HttpServer server;
  private final ExecutorService pool;
  private final Map<String, Arrivals> byPath = new ConcurrentHashMap<>();
  private final LongAdder calls = new LongAdder();

  private DispatchReceiver(HttpServer server, ExecutorService pool) {
    this.server = server;
    this.pool = pool;
  }

  /** Starts on a free loopback port, answering on {@code threads} threads. */
  static DispatchReceiver start(int threads) throws IOException {
    // A backlog as large as the most connections a side opens at once (1,000 destinations × 4).
    HttpServer server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8192);
    AtomicInteger made = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, THREADS + made.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    DispatchReceiver receiver = new DispatchReceiver(server, pool);
    server.createContext("/", receiver::answer);
    server.setExecutor(pool);
    server.start();
    return receiver;
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (InputStream body = exchange.getRequestBody()) {
      body.transferTo(OutputStream.nullOutputStream());
    }
    long now = System.nanoTime();
    byPath.computeIfAbsent(exchange.getRequestURI().getPath(), p -> new Arrivals()).add(now);
    calls.increment();
    exchange.sendResponseHeaders(200, -1);
    exchange.close();
  }

  /** The URL of destination {@code path} (e.g. {@code /d/7}). */
  URI url(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  /** Calls answered since the start or the last {@link #reset}. */
  long calls() {
    return calls.sum();
  }

  /** Arrival instants by path, each in order of arrival. */
  Map<String, long[]> arrivals() {
    Map<String, long[]> copy = new TreeMap<>();
    byPath.forEach((path, a) -> copy.put(path, a.toArray()));
    return copy;
  }

  /** Forgets every call so far (between two sides of one case). */
  void reset() {
    byPath.clear();
    calls.reset();
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One path's arrival instants: appended by the receiver's threads, read once a side ends. */
  private static final class Arrivals {
    private long[] times = new long[64];
    private int size;

    synchronized void add(long nanos) {
      if (size == times.length) {
        times = Arrays.copyOf(times, size * 2);
      }
      times[size++] = nanos;
    }

    synchronized long[] toArray() {
      return Arrays.copyOf(times, size);
    }
  }
}
