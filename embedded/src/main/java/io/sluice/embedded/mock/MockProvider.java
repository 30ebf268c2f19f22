package io.sluice.embedded.mock;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

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
 * <p>Several limits at once ({@link #start(List, Announce, Duration)}): calls and cost units per
 * sliding window, all strict (no burst), over ARRIVAL times. A call is accepted only if it fits
 * every limit; a refused call takes nothing from any of them, and gets 429 with
 * {@code Retry-After} (whole seconds, rounded up) for the longest wait among the limits it breaks.
 * The cost of a call is the integer in its {@value #COST_HEADER} header (absent: 1; not a positive
 * integer: 400). A cost above a cost limit can never fit: 400, never 429. The mock may announce its
 * limits in every answer ({@link Announce}):
 * <ul>
 *   <li>{@code ietf} (draft-ietf-httpapi-ratelimit-headers): {@code RateLimit-Policy:
 *       "calls-1s";q=20;w=1, "calls-60s";q=600;w=60, "cost-60s";q=5000;w=60;qu="cost"} and
 *       {@code RateLimit: "calls-1s";r=<remaining>;t=<seconds>, ...}, one item per limit, where
 *       {@code t} is the whole seconds (rounded up) until the oldest unit in the window leaves it
 *       (0 when the window is empty); call limits name no {@code qu} (the default, requests);
 *   <li>{@code x-ratelimit} (the OpenAI family): {@code x-ratelimit-limit-requests},
 *       {@code x-ratelimit-remaining-requests}, {@code x-ratelimit-reset-requests} (a duration such
 *       as {@code 6m0s}, {@code 1s}, {@code 250ms}; seconds rounded up), and the same with
 *       {@code -tokens} for cost; this family has room for one limit per unit, so it announces the
 *       one with the LONGEST window (as that API does for its per-minute limits);
 *   <li>{@code x-ratelimit-periods} (Kong's family): {@code X-RateLimit-Limit-Second: 20},
 *       {@code X-RateLimit-Remaining-Second}, and the same for {@code -Minute}, {@code -Hour},
 *       {@code -Day}, one pair per call limit whose window is exactly one of those periods (other
 *       call limits are not announced); cost limits as in {@code x-ratelimit}, with
 *       {@code -tokens}. The mock's windows stay sliding, stricter than Kong's fixed ones.
 * </ul>
 * Announced values are taken after the call's own admission. Scripted answers announce too.
 *
 * <p>Command line ({@link #main}), stable: either one integer (calls per sliding second, as
 * before), or options {@code --limit <n>/<window>} (repeatable), {@code --cost-limit <n>/<window>}
 * (repeatable), {@code --announce none|ietf|x-ratelimit} (default none), {@code --latency-ms <ms>}
 * (default 0), {@code --cost-header <name>} (where the cost is read, default
 * {@value #COST_HEADER}); a window is a number and {@code ms|s|m|h}. Example: {@code --limit 20/1s --limit
 * 600/60s --cost-limit 5000/60s --announce ietf}.
 *
 * <p>Every call is recorded with its arrival time, path, idempotency key and the status it got, so
 * tests can check spacing, fairness and headers from the provider's side of the wire.
 */
public final class MockProvider implements AutoCloseable {
  /** One call as the provider saw it. */
  public record Call(
      long atNanos, long atEpochMillis, String path, String idempotencyKey,
      Map<String, String> headers, byte[] body, int status) {
    /** The cost the call carried ({@value #COST_HEADER}; 1 when absent or unreadable). */
    public long cost() {
      String text = headers == null ? null : headers.get(COST_HEADER.toLowerCase(Locale.ROOT));
      Long cost = text == null ? Long.valueOf(1) : parseCost(text);
      return cost == null ? 1 : cost;
    }
  }

  /** Which response headers announce the limits. */
  public enum Announce {
    NONE, IETF, X_RATELIMIT, X_RATELIMIT_PERIODS,
    /**
     * As hostile as answers get (issue 20), whatever the limits: every answer states
     * {@code RateLimit-Policy: "trap";q=0;w=2678400, "daily";q=1;w=86400} with
     * {@code RateLimit: "daily";r=0;t=86400}, and every 429 asks {@code Retry-After: 86400}.
     */
    HOSTILE;

    /** {@code none}, {@code ietf}, {@code x-ratelimit}, {@code x-ratelimit-periods} or {@code hostile}. */
    public static Announce parse(String text) {
      return switch (text.trim().toLowerCase(Locale.ROOT)) {
        case "none" -> NONE;
        case "ietf" -> IETF;
        case "x-ratelimit" -> X_RATELIMIT;
        case "x-ratelimit-periods" -> X_RATELIMIT_PERIODS;
        case "hostile" -> HOSTILE;
        default -> throw new IllegalArgumentException("--announce is none, ietf, x-ratelimit,"
            + " x-ratelimit-periods or hostile, not '" + text + "'");
      };
    }
  }

  /** The request header a call's cost travels in (an integer, at least 1; absent means 1). */
  public static final String COST_HEADER = "Sluice-Cost";

  /** A scripted answer, used for the next call(s) instead of the normal behaviour. */
  public record Answer(int status, String retryAfter) {}

  private final HttpServer server;
  private final ExecutorService handlers;
  private final ScheduledExecutorService delays;
  private final double ratePerSecond;
  /** Token bucket capacity when tolerant; 0 when strict (the sliding window decides). */
  private final double burst;
  /** The strict limits, in the order given; empty when tolerant (the token bucket decides). */
  private final List<ProviderWindow> limits;
  private final List<SlidingWindowLimit> windows;
  private final Announce announce;
  /** The request header the cost is read from (lower case). */
  private volatile String costHeader = COST_HEADER.toLowerCase(Locale.ROOT);
  private final List<Call> calls = new ArrayList<>();
  private final ArrayDeque<Answer> script = new ArrayDeque<>();
  private final Map<String, Answer> byPath = new ConcurrentHashMap<>();
  private final AtomicLong tooMany = new AtomicLong();
  private volatile long latencyMillis;
  /** Bodies of 200 answers ({@link #answerBodies}); null: none. */
  private volatile Function<Call, byte[]> bodies;
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
      List<ProviderWindow> limits, Announce announce, Duration latency) {
    this.server = server;
    this.ratePerSecond = ratePerSecond;
    this.burst = burst;
    this.limits = List.copyOf(limits);
    this.windows = this.limits.stream()
        .map(l -> new SlidingWindowLimit(l.amount(), l.window().toNanos())).toList();
    this.announce = announce;
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
    return start(List.of(ProviderWindow.calls(callsPerSecond, Duration.ofSeconds(1))),
        Announce.NONE, latency);
  }

  /**
   * Starts a strict provider enforcing every one of {@code limits} at once (see the class
   * comment), announcing them as {@code announce} says.
   */
  public static MockProvider start(List<ProviderWindow> limits, Announce announce,
      Duration latency) {
    if (limits.isEmpty()) {
      throw new IllegalArgumentException("a strict provider needs at least one limit");
    }
    return listen(0, 0, limits, announce, latency);
  }

  /**
   * Starts a provider that tolerates bursts, by explicit choice: a token bucket.
   *
   * @param ratePerSecond its own limit
   * @param burst         calls it accepts at once (token bucket capacity), at least 1
   * @param latency       how long each answer takes
   */
  public static MockProvider start(double ratePerSecond, double burst, Duration latency) {
    return listen(ratePerSecond, Math.max(1, burst), List.of(), Announce.NONE, latency);
  }

  private static MockProvider listen(double ratePerSecond, double burst,
      List<ProviderWindow> limits, Announce announce, Duration latency) {
    try {
      HttpServer server = HttpServer.create(
          new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
      return new MockProvider(server, ratePerSecond, burst, limits, announce, latency);
    } catch (IOException e) {
      throw new IllegalStateException("mock provider: could not listen on a free port", e);
    }
  }

  /**
   * Runs a strict provider in a process of its own, so that the judge of arrival times shares no
   * JVM (no collector pauses, no safepoints) with the dispatchers it judges. Arguments: calls per
   * second, or the options of the class comment ({@code --limit 20/1s --cost-limit 5000/60s
   * --announce ietf}). Prints {@code url <url>}; for each line {@code count} on standard input prints the
   * number of calls so far; for each line {@code calls}, one line per call so far,
   * {@code <atNanos> <status> <idempotencyKey>}, then {@code end}; for {@code costs}, one line per
   * call {@code <atNanos> <status> <cost> <idempotencyKey>}, then {@code end}; for {@code next <status>
   * <retryAfter>}, scripts the next call's answer and prints {@code ok}; stops at the end of
   * standard input. {@code atNanos} is {@code System.nanoTime()}, which on Linux reads
   * CLOCK_MONOTONIC and so compares across the processes of one machine.
   */
  public static void main(String[] args) throws IOException {
    try (MockProvider mock = fromArguments(args);
         BufferedReader in = new BufferedReader(
             new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      PrintStream out = System.out;
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
        } else if (line.trim().equals("costs")) {
          StringBuilder dump = new StringBuilder();
          for (Call c : mock.calls()) {
            dump.append(c.atNanos()).append(' ').append(c.status()).append(' ')
                .append(c.cost()).append(' ').append(c.idempotencyKey()).append('\n');
          }
          out.print(dump.append("end\n"));
          out.flush();
        }
      }
    }
  }

  /** The provider {@link #main} starts for these arguments (see the class comment). */
  static MockProvider fromArguments(String... args) {
    if (args.length == 1 && !args[0].startsWith("--")) {
      return start(Integer.parseInt(args[0]), Duration.ZERO);
    }
    List<ProviderWindow> limits = new ArrayList<>();
    Announce announce = Announce.NONE;
    Duration latency = Duration.ZERO;
    String costHeader = COST_HEADER;
    for (int i = 0; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(args[i] + " needs a value");
      }
      String value = args[i + 1];
      switch (args[i]) {
        case "--limit" -> limits.add(ProviderWindow.parse(ProviderWindow.Unit.CALLS, value));
        case "--cost-limit" -> limits.add(ProviderWindow.parse(ProviderWindow.Unit.COST, value));
        case "--announce" -> announce = Announce.parse(value);
        case "--latency-ms" -> latency = Duration.ofMillis(Long.parseLong(value));
        case "--cost-header" -> costHeader = value;
        default -> throw new IllegalArgumentException("unknown option " + args[i]
            + " (--limit, --cost-limit, --announce, --latency-ms, --cost-header)");
      }
    }
    MockProvider mock = start(limits, announce, latency);
    mock.costHeader(costHeader);
    return mock;
  }

  /** Reads each call's cost from this request header from now on (default {@value #COST_HEADER}). */
  public void costHeader(String name) {
    this.costHeader = name.toLowerCase(Locale.ROOT);
  }

  /** The limits a strict provider enforces (empty for a tolerant one). */
  public List<ProviderWindow> limits() {
    return limits;
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
    windows.forEach(SlidingWindowLimit::clear);
  }

  /** Every call so far, in arrival order. */
  public synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  public synchronized int callCount() {
    return calls.size();
  }

  /** 429s it answered because its own limit was exceeded (scripted ones not included). */
  /**
   * From now, a 200 to a call gets the body {@code bodies} gives for it (null: none), e.g. a
   * batch's {@code {"results":[...]}}; the status stays the limit's verdict.
   */
  public void answerBodies(Function<Call, byte[]> bodies) {
    this.bodies = bodies;
  }

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
    Map<String, String> announced;
    synchronized (this) {
      answer = script.pollFirst();
      String path = exchange.getRequestURI().toString();
      for (Map.Entry<String, Answer> rule : byPath.entrySet()) {
        if (answer == null && path.contains(rule.getKey())) {
          answer = rule.getValue();
        }
      }
      if (answer == null) {
        Long cost = headers.containsKey(costHeader) ? parseCost(headers.get(costHeader)) : 1L;
        if (cost == null || !everFits(cost)) {
          answer = new Answer(400, null);
        } else {
          answer = admit(atNanos, cost) ? new Answer(200, null) : limited(atNanos, cost);
        }
      }
      announced = announcement(atNanos);
      if (!costHeader.equals(COST_HEADER.toLowerCase(Locale.ROOT)) && headers.containsKey(costHeader)) {
        // Call.cost() reads the standard name.
        headers.put(COST_HEADER.toLowerCase(Locale.ROOT), headers.get(costHeader));
      }
      calls.add(new Call(atNanos, atMillis, exchange.getRequestURI().toString(),
          headers.get("idempotency-key"), Map.copyOf(headers), body, answer.status()));
    }
    Answer chosen = answer;
    Function<Call, byte[]> answering = bodies;
    byte[] out = answering == null || chosen.status() != 200 ? null
        : answering.apply(calls.get(calls.size() - 1));
    long delay = latencyMillis;
    if (delay <= 0) {
      respond(exchange, chosen, announced, out);
    } else {
      delays.schedule(() -> respond(exchange, chosen, announced, out), delay,
          TimeUnit.MILLISECONDS);
    }
  }

  /** A positive integer cost, or null. */
  private static Long parseCost(String text) {
    try {
      long cost = Long.parseLong(text.trim());
      return cost >= 1 ? cost : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The weight a call of this cost puts on a limit. */
  private static long weight(ProviderWindow limit, long cost) {
    return limit.unit() == ProviderWindow.Unit.COST ? cost : 1;
  }

  /** Whether a call of this cost can ever be accepted (no cost limit smaller than it). */
  private boolean everFits(long cost) {
    for (ProviderWindow limit : limits) {
      if (weight(limit, cost) > limit.amount()) {
        return false;
      }
    }
    return true;
  }

  /**
   * The provider's own limits: every one must hold the call, or none is charged. Caller holds the
   * monitor.
   */
  private boolean admit(long nowNanos, long cost) {
    if (!windows.isEmpty()) {
      for (int i = 0; i < windows.size(); i++) {
        if (!windows.get(i).fits(nowNanos, weight(limits.get(i), cost))) {
          return false;
        }
      }
      for (int i = 0; i < windows.size(); i++) {
        windows.get(i).take(nowNanos, weight(limits.get(i), cost));
      }
      return true;
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
  private Answer limited(long nowNanos, long cost) {
    tooMany.incrementAndGet();
    double wait;
    if (windows.isEmpty()) {
      wait = (1 - tokens) / ratePerSecond;
    } else {
      long longest = 0;
      for (int i = 0; i < windows.size(); i++) {
        longest = Math.max(longest, windows.get(i).waitNanos(nowNanos, weight(limits.get(i), cost)));
      }
      wait = longest / 1e9;
    }
    return new Answer(429, announce == Announce.HOSTILE ? "86400"
        : String.valueOf((long) Math.ceil(wait)));
  }

  /** The headers announcing the limits as they stand now. Caller holds the monitor. */
  private Map<String, String> announcement(long nowNanos) {
    Map<String, String> out = new TreeMap<>();
    if (announce == Announce.HOSTILE) {
      out.put("RateLimit-Policy", "\"trap\";q=0;w=2678400, \"daily\";q=1;w=86400");
      out.put("RateLimit", "\"daily\";r=0;t=86400");
    } else if (announce == Announce.IETF && !limits.isEmpty()) {
      List<String> policy = new ArrayList<>();
      List<String> state = new ArrayList<>();
      for (int i = 0; i < limits.size(); i++) {
        ProviderWindow l = limits.get(i);
        SlidingWindowLimit w = windows.get(i);
        String name = "\"" + l.policyName() + "\"";
        policy.add(name + ";q=" + l.amount() + ";w=" + l.windowSeconds()
            + (l.unit() == ProviderWindow.Unit.COST ? ";qu=\"cost\"" : ""));
        state.add(name + ";r=" + w.remaining(nowNanos) + ";t="
            + TimeUnit.NANOSECONDS.toSeconds(w.resetNanos(nowNanos) + 999_999_999));
      }
      out.put("RateLimit-Policy", String.join(", ", policy));
      out.put("RateLimit", String.join(", ", state));
    } else if (announce == Announce.X_RATELIMIT) {
      announceLongest(out, nowNanos, ProviderWindow.Unit.values());
    } else if (announce == Announce.X_RATELIMIT_PERIODS) {
      for (int i = 0; i < limits.size(); i++) {
        ProviderWindow l = limits.get(i);
        String period = PERIOD_NAMES.get(l.window());
        if (l.unit() == ProviderWindow.Unit.CALLS && period != null) {
          out.put("X-RateLimit-Limit-" + period, Long.toString(l.amount()));
          out.put("X-RateLimit-Remaining-" + period,
              Long.toString(windows.get(i).remaining(nowNanos)));
        }
      }
      announceLongest(out, nowNanos, new ProviderWindow.Unit[] {ProviderWindow.Unit.COST});
    }
    return out;
  }

  /** The windows the period-suffixed family can state, by the suffix that states each. */
  private static final Map<Duration, String> PERIOD_NAMES = Map.of(Duration.ofSeconds(1),
      "Second", Duration.ofMinutes(1), "Minute", Duration.ofHours(1), "Hour", Duration.ofDays(1),
      "Day");

  /** The x-ratelimit family: per unit, the limit with the longest window. */
  private void announceLongest(Map<String, String> out, long nowNanos,
      ProviderWindow.Unit[] units) {
    for (ProviderWindow.Unit unit : units) {
      int chosen = -1;
      for (int i = 0; i < limits.size(); i++) {
        if (limits.get(i).unit() == unit && (chosen < 0
            || limits.get(i).window().compareTo(limits.get(chosen).window()) > 0)) {
          chosen = i;
        }
      }
      if (chosen >= 0) {
        SlidingWindowLimit w = windows.get(chosen);
        out.put("x-ratelimit-limit-" + unit.xRateLimitSuffix, Long.toString(w.limit()));
        out.put("x-ratelimit-remaining-" + unit.xRateLimitSuffix,
            Long.toString(w.remaining(nowNanos)));
        out.put("x-ratelimit-reset-" + unit.xRateLimitSuffix,
            goDuration(w.resetNanos(nowNanos)));
      }
    }
  }

  /**
   * A duration as Go prints it, the way the x-ratelimit family sends resets: {@code 250ms} below a
   * second, else whole seconds rounded up: {@code 1s}, {@code 6m0s}, {@code 1h0m0s}.
   */
  static String goDuration(long nanos) {
    if (nanos < 1_000_000_000L) {
      return TimeUnit.NANOSECONDS.toMillis(nanos + 999_999) + "ms";
    }
    long s = TimeUnit.NANOSECONDS.toSeconds(nanos + 999_999_999);
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return (s / 60) + "m" + (s % 60) + "s";
    }
    return (s / 3600) + "h" + (s % 3600 / 60) + "m" + (s % 60) + "s";
  }

  private static void respond(HttpExchange exchange, Answer answer, Map<String, String> announced,
      byte[] body) {
    try {
      if (answer.retryAfter() != null) {
        exchange.getResponseHeaders().add("Retry-After", answer.retryAfter());
      }
      announced.forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
      if (body == null) {
        exchange.sendResponseHeaders(answer.status(), -1);
      } else {
        exchange.sendResponseHeaders(answer.status(), body.length);
        exchange.getResponseBody().write(body);
      }
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
