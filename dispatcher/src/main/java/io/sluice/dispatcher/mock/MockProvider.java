package io.sluice.dispatcher.mock;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A local HTTP provider for the demo and the tests: it enforces its own rate limit, the way a
 * partner API does, and answers 429 with {@code Retry-After} beyond it, counting every call.
 *
 * <p>By default the limit is strict ({@link #start(int, Duration)}): at most L calls in ANY
 * sliding second, judged on arrival times, with no burst tolerance: the strictest limit a partner
 * publishes as "L per second", and the one Sluice must meet at 0.96 L. A test about bursts may opt
 * into tolerance explicitly (the three-argument {@code start}, naming a burst): a token bucket of
 * {@code burst} calls refilled at {@code rate}, a GCRA with a tolerance of
 * {@code (burst - 1) / rate}. It can also answer slowly (to stand for a provider whose calls take seconds) and follow a script of answers
 * (e.g. "the next call gets 429 with Retry-After: 2").
 *
 * <p>Every call is recorded with its arrival time, path, idempotency key and the status it got, so
 * tests can check spacing, fairness and headers from the provider's side of the wire.
 */
public final class MockProvider implements AutoCloseable {
  /** One call as the provider saw it. */
  public record Call(
      long atNanos, long atEpochMillis, String path, String idempotencyKey,
      Map<String, String> headers, byte[] body, int status) {}

  /** A scripted answer, used for the next call(s) instead of the normal behaviour. */
  public record Answer(int status, String retryAfter) {}

  private final HttpServer server;
  private final ExecutorService handlers;
  private final ScheduledExecutorService delays;
  private final double ratePerSecond;
  /** Token bucket capacity when tolerant; 0 when strict (the sliding window decides). */
  private final double burst;
  private final SlidingWindowLimit window;
  private final List<Call> calls = new ArrayList<>();
  private final ArrayDeque<Answer> script = new ArrayDeque<>();
  private final Map<String, Answer> byPath = new java.util.concurrent.ConcurrentHashMap<>();
  private final AtomicLong tooMany = new AtomicLong();
  private volatile long latencyMillis;
  private double tokens;
  private long refilledAt;

  static {
    // The JDK server leaves Nagle's algorithm on by default: with the client's delayed ACKs an
    // answer can sit 40 ms in the socket, which a provider standing in for a real one must not
    // add. Read once, when the server classes load; an explicit setting wins.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  private MockProvider(HttpServer server, double ratePerSecond, double burst,
      Duration latency) {
    this.server = server;
    this.ratePerSecond = ratePerSecond;
    this.burst = burst;
    this.window = burst > 0 ? null
        : new SlidingWindowLimit((int) ratePerSecond, TimeUnit.SECONDS.toNanos(1));
    this.tokens = burst;
    this.refilledAt = System.nanoTime();
    this.latencyMillis = latency.toMillis();
    this.handlers = Executors.newCachedThreadPool(r -> daemon(r, "mock-provider-http"));
    this.delays = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "mock-provider-delay"));
    server.setExecutor(handlers);
    server.createContext("/", this::handle);
    server.start();
  }

  /**
   * Starts a strict provider on a free port of the loopback interface: at most
   * {@code callsPerSecond} calls in any sliding second, no burst tolerance.
   *
   * @param latency how long each answer takes
   */
  public static MockProvider start(int callsPerSecond, Duration latency) {
    if (callsPerSecond < 1) {
      throw new IllegalArgumentException("a limit of at least 1 call a second, not " + callsPerSecond);
    }
    return listen(callsPerSecond, 0, latency);
  }

  /**
   * Starts a provider that tolerates bursts, by explicit choice: a token bucket.
   *
   * @param ratePerSecond its own limit
   * @param burst         calls it accepts at once (token bucket capacity), at least 1
   * @param latency       how long each answer takes
   */
  public static MockProvider start(double ratePerSecond, double burst, Duration latency) {
    return listen(ratePerSecond, Math.max(1, burst), latency);
  }

  private static MockProvider listen(double ratePerSecond, double burst, Duration latency) {
    try {
      HttpServer server = HttpServer.create(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
      return new MockProvider(server, ratePerSecond, burst, latency);
    } catch (IOException e) {
      throw new IllegalStateException("mock provider: could not listen on a free port", e);
    }
  }

  /**
   * Runs a strict provider in a process of its own, so that the judge of arrival times shares no
   * JVM (no collector pauses, no safepoints) with the dispatchers it judges. Argument: calls per
   * second. Prints {@code url <url>}; for each line {@code count} on standard input prints the
   * number of calls so far; for each line {@code calls}, one line per call so far,
   * {@code <atNanos> <status> <idempotencyKey>}, then {@code end}; for {@code next <status>
   * <retryAfter>}, scripts the next call's answer and prints {@code ok}; stops at the end of
   * standard input. {@code atNanos} is {@code System.nanoTime()}, which on Linux reads
   * CLOCK_MONOTONIC and so compares across the processes of one machine.
   */
  public static void main(String[] args) throws IOException {
    try (MockProvider mock = start(Integer.parseInt(args[0]), Duration.ZERO);
         java.io.BufferedReader in = new java.io.BufferedReader(
             new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8))) {
      java.io.PrintStream out = System.out;
      out.println("url " + mock.url());
      out.flush();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] words = line.trim().split(" ");
        if (words[0].equals("next") && words.length == 3) {
          mock.answerNext(1, new Answer(Integer.parseInt(words[1]), words[2]));
          out.println("ok");
          out.flush();
        } else if (line.trim().equals("count")) {
          out.println(mock.callCount());
          out.flush();
        } else if (line.trim().equals("calls")) {
          StringBuilder dump = new StringBuilder();
          for (Call c : mock.calls()) {
            dump.append(c.atNanos()).append(' ').append(c.status()).append(' ')
                .append(c.idempotencyKey()).append('\n');
          }
          out.print(dump.append("end\n"));
          out.flush();
        }
      }
    }
  }

  /** The base URL, e.g. {@code http://127.0.0.1:41234/hooks}. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hooks");
  }

  /** Answers from now on take this long. */
  public void latency(Duration latency) {
    this.latencyMillis = latency.toMillis();
  }

  /** The next {@code n} calls get this answer, before the rate limit is even looked at. */
  public synchronized void answerNext(int n, Answer answer) {
    for (int i = 0; i < n; i++) {
      script.add(answer);
    }
  }

  /** Calls whose path contains {@code fragment} always get this answer (e.g. 404 for "gone/"). */
  public void answerPaths(String fragment, Answer answer) {
    byPath.put(fragment, answer);
  }

  /** Forgets every call and count, and fills the bucket again (e.g. after warming up). */
  public synchronized void reset() {
    calls.clear();
    script.clear();
    tooMany.set(0);
    tokens = burst;
    refilledAt = System.nanoTime();
    if (window != null) {
      window.clear();
    }
  }

  /** Every call so far, in arrival order. */
  public synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  public synchronized int callCount() {
    return calls.size();
  }

  /** 429s it answered because its own limit was exceeded (scripted ones not included). */
  public long rateLimited() {
    return tooMany.get();
  }

  private void handle(HttpExchange exchange) throws IOException {
    long atNanos = System.nanoTime();
    long atMillis = System.currentTimeMillis();
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readAllBytes();
    }
    Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    exchange.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT),
        v.isEmpty() ? "" : v.get(0)));
    Answer answer;
    synchronized (this) {
      answer = script.pollFirst();
      String path = exchange.getRequestURI().toString();
      for (Map.Entry<String, Answer> rule : byPath.entrySet()) {
        if (answer == null && path.contains(rule.getKey())) {
          answer = rule.getValue();
        }
      }
      if (answer == null) {
        answer = admit(atNanos) ? new Answer(200, null) : limited(atNanos);
      }
      calls.add(new Call(atNanos, atMillis, exchange.getRequestURI().toString(),
          headers.get("idempotency-key"), Map.copyOf(headers), body, answer.status()));
    }
    Answer chosen = answer;
    long delay = latencyMillis;
    if (delay <= 0) {
      respond(exchange, chosen);
    } else {
      delays.schedule(() -> respond(exchange, chosen), delay, TimeUnit.MILLISECONDS);
    }
  }

  /** The provider's own limit. Caller holds the monitor. */
  private boolean admit(long nowNanos) {
    if (window != null) {
      return window.admit(nowNanos);
    }
    double elapsed = (nowNanos - refilledAt) / 1e9;
    tokens = Math.min(burst, tokens + elapsed * ratePerSecond);
    refilledAt = nowNanos;
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }

  /** A 429 whose Retry-After (whole seconds, rounded up) says when a token will be there. */
  private Answer limited(long nowNanos) {
    tooMany.incrementAndGet();
    double wait = window != null ? window.waitNanos(nowNanos) / 1e9 : (1 - tokens) / ratePerSecond;
    return new Answer(429, String.valueOf((long) Math.ceil(wait)));
  }

  private static void respond(HttpExchange exchange, Answer answer) {
    try {
      if (answer.retryAfter() != null) {
        exchange.getResponseHeaders().add("Retry-After", answer.retryAfter());
      }
      exchange.sendResponseHeaders(answer.status(), -1);
    } catch (IOException e) {
      // The client went away (timed out): nothing to answer.
    } finally {
      exchange.close();
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    server.stop(0);
    delays.shutdownNow();
    handlers.shutdownNow();
  }
}
