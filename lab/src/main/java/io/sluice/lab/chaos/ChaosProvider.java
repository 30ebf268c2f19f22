package io.sluice.lab.chaos;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The providers of a chaos run: one HTTP server, one provider per first path segment
 * ({@code /p-open}, {@code /p-closed}, ...). Each enforces a strict limit of {@code limit} calls
 * in any sliding second with no burst tolerance (a 429 with {@code Retry-After: 1} beyond it), and
 * follows the {@link ProviderPhase} schedule. Every arrival is recorded: time, provider,
 * {@code Idempotency-Key}, status. One path may be dead for a stretch ({@link #deadWhile}): every
 * call to it is answered 503 then, whatever the phase.
 */
public final class ChaosProvider implements AutoCloseable {
  static final long SLOW_MILLIS = 600;
  static final String STORM_RETRY_AFTER = "2";
  static final String HOSTILE_RETRY_AFTER = "86400";
  static final String HOSTILE_POLICY = "\"trap\";q=0;w=2678400, \"daily\";q=1;w=86400";
  static final String HOSTILE_REMAINING = "\"daily\";r=0;t=86400";
  /** What the providers state after the hostile phase: their real daily quota. */
  static final String RESTATED_POLICY = "\"daily\";q=%d;w=86400";

  private final HttpServer server;
  private final ExecutorService handlers;
  private final int limit;
  private final long holdMillis;
  private final LongSupplier phaseClock;
  private final long loadMillis;
  private final List<ArrivalFigures.Arrival> arrivals = new ArrayList<>();
  private final Map<String, ArrayDeque<Long>> accepted = new ConcurrentHashMap<>();
  private final AtomicLong calls = new AtomicLong();
  /** A path answered 503 while the phase clock is in [from, to): none unless set. */
  private volatile Dead dead = new Dead("", 0, 0);

  private record Dead(String path, long fromMillis, long toMillis) {
    boolean covers(String p, long elapsed) {
      return p.equals(path) && elapsed >= fromMillis && elapsed < toMillis;
    }
  }
  /** How many hostile answers each provider gives ({@link ProviderPhase#HOSTILE}). */
  static final int HOSTILE_ANSWERS = 4;
  /** When each provider gave a hostile answer, by provider. */
  private final Map<String, List<Long>> hostileAt = new ConcurrentHashMap<>();
  /** Each provider's answers since its hostile ones, to alternate the families it states. */
  private final Map<String, AtomicLong> restatedCount = new ConcurrentHashMap<>();

  static {
    // Nagle's algorithm with the client's delayed ACKs would add 40 ms to answers.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  /**
   * @param limit      calls allowed per provider in any sliding second
   * @param holdMillis how long a "timeout" call is held (longer than the providers' timeout)
   * @param phaseClock milliseconds since the load started (negative before)
   * @param loadMillis the load period the phases are fractions of
   */
  public ChaosProvider(int limit, long holdMillis, LongSupplier phaseClock, long loadMillis)
      throws IOException {
    this.limit = limit;
    this.holdMillis = holdMillis;
    this.phaseClock = phaseClock;
    this.loadMillis = loadMillis;
    this.server = HttpServer.create(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
    this.handlers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "chaos-provider");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(handlers);
    server.createContext("/", this::handle);
    server.start();
  }

  /** The URL of provider {@code name}. */
  public String url(String name) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/" + name;
  }

  /**
   * Calls to {@code path} (e.g. {@code /p-hooks/free-4}) are answered 503 from {@code fromMillis}
   * to {@code toMillis} of the phase clock: an endpoint dead for that stretch, then mended.
   */
  public void deadWhile(String path, long fromMillis, long toMillis) {
    this.dead = new Dead(path, fromMillis, toMillis);
  }

  /** A copy of every arrival so far. */
  public synchronized List<ArrivalFigures.Arrival> arrivals() {
    return List.copyOf(arrivals);
  }

  /** Calls received so far. */
  public long calls() {
    return calls.get();
  }

  /** Time of the last arrival, or 0. */
  public synchronized long lastArrivalMillis() {
    return arrivals.isEmpty() ? 0 : arrivals.get(arrivals.size() - 1).atMillis();
  }

  private void handle(HttpExchange exchange) throws IOException {
    long at = System.currentTimeMillis();
    long n = calls.incrementAndGet();
    try (exchange; InputStream body = exchange.getRequestBody()) {
      body.readAllBytes();
      String path = exchange.getRequestURI().getPath();
      String provider = path.length() > 1 ? path.substring(1).split("/", 2)[0] : "";
      String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
      if (dead.covers(path, phaseClock.getAsLong())) {
        record(at, provider, key, 503, false);
        answer(exchange, 503, null);
        return;
      }
      ProviderPhase phase = ProviderPhase.at(phaseClock.getAsLong(), loadMillis);
      switch (phase) {
        case STORM -> {
          record(at, provider, key, 429, true);
          answer(exchange, 429, STORM_RETRY_AFTER);
          return;
        }
        case ERRORS -> {
          if (n % 2 == 0) {
            record(at, provider, key, 500, false);
            answer(exchange, 500, null);
            return;
          }
        }
        case TIMEOUTS -> {
          if (n % 3 == 0) {
            // Held past the client's timeout: the client gave up, so it is not a delivery.
            record(at, provider, key, ArrivalFigures.Arrival.HUNG, false);
            sleep(holdMillis);
            answer(exchange, 200, null);
            return;
          }
        }
        case HOSTILE -> {
          int given = hostile(provider, at);
          if (given < 0) {
            restate(exchange, provider);
          } else if (given % 2 == 0) {
            record(at, provider, key, 429, true);
            exchange.getResponseHeaders().set("RateLimit-Policy", HOSTILE_POLICY);
            exchange.getResponseHeaders().set("RateLimit", HOSTILE_REMAINING);
            answer(exchange, 429, HOSTILE_RETRY_AFTER);
            return;
          } else {
            exchange.getResponseHeaders().set("X-RateLimit-Limit", "1");
            exchange.getResponseHeaders().set("X-RateLimit-Remaining", "0");
            exchange.getResponseHeaders().set("X-RateLimit-Reset",
                Long.toString(at / 1000 + 86_400));
          }
        }
        case SLOW -> sleep(SLOW_MILLIS);
        case NORMAL -> restate(exchange, provider);
      }
      if (!admit(provider)) {
        record(at, provider, key, 429, false);
        answer(exchange, 429, "1");
        return;
      }
      record(at, provider, key, 200, false);
      answer(exchange, 200, null);
    }
  }

  /**
   * Counts a hostile answer of {@code provider} at {@code at}: its index (0, 1, ...), or -1 when
   * the provider has given all {@link #HOSTILE_ANSWERS}.
   */
  private int hostile(String provider, long at) {
    List<Long> given = hostileAt.computeIfAbsent(provider, p -> new ArrayList<>());
    synchronized (given) {
      if (given.size() >= HOSTILE_ANSWERS) {
        return -1;
      }
      given.add(at);
      return given.size() - 1;
    }
  }

  /**
   * Once {@code provider} has given its hostile answers, its real limits, as a provider announcing
   * them states them on every answer: its whole policy list ({@code RateLimit-Policy}: the daily
   * quota, {@code limit} a second for a day) on every other answer of this provider, the others
   * {@code X-RateLimit-Limit: limit} with its one-second reset, so each header family the hostile
   * answers used is restated within two answers (counted per provider: a count over all providers
   * could give one provider a single family for good). They replace what the hostile answers
   * taught (another quota under the same name replaces it; a policy the list leaves out is dropped).
   */
  private void restate(HttpExchange exchange, String provider) {
    List<Long> given = hostileAt.get(provider);
    if (given == null || given.size() < HOSTILE_ANSWERS) {
      return;
    }
    long n = restatedCount.computeIfAbsent(provider, p -> new AtomicLong()).getAndIncrement();
    if (n % 2 == 0) {
      exchange.getResponseHeaders().set("RateLimit-Policy",
          String.format(RESTATED_POLICY, (long) limit * 86_400));
    } else {
      exchange.getResponseHeaders().set("X-RateLimit-Limit", Integer.toString(limit));
      exchange.getResponseHeaders().set("X-RateLimit-Remaining", Integer.toString(limit - 1));
      exchange.getResponseHeaders().set("X-RateLimit-Reset", "1");
    }
  }

  /** When each provider gave a hostile answer (copies). */
  public Map<String, List<Long>> hostileAnswers() {
    Map<String, List<Long>> copy = new TreeMap<>();
    hostileAt.forEach((p, times) -> {
      synchronized (times) {
        copy.put(p, List.copyOf(times));
      }
    });
    return copy;
  }

  /** The strict limit: at most {@code limit} accepted calls in any sliding second. */
  private boolean admit(String provider) {
    ArrayDeque<Long> window = accepted.computeIfAbsent(provider, p -> new ArrayDeque<>());
    synchronized (window) {
      long now = System.nanoTime();
      while (!window.isEmpty() && now - window.peekFirst() >= 1_000_000_000L) {
        window.pollFirst();
      }
      if (window.size() >= limit) {
        return false;
      }
      window.addLast(now);
      return true;
    }
  }

  private synchronized void record(long at, String provider, String key, int status,
      boolean storm) {
    arrivals.add(new ArrivalFigures.Arrival(at, provider, key == null ? "" : key, status, storm));
  }

  private static void answer(HttpExchange exchange, int status, String retryAfter)
      throws IOException {
    if (retryAfter != null) {
      exchange.getResponseHeaders().set("Retry-After", retryAfter);
    }
    byte[] body = ("{\"status\":" + status + "}").getBytes();
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis); // the provider's own slowness, not a synchronisation
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    handlers.shutdownNow();
  }
}
