package io.sluice.lab.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.DispatchListener;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.relay.RelayListener;
import io.sluice.relay.RelayService;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Scenario {@code dispatch} (issue 36): what the dispatcher costs per call, against the JVM's own
 * HTTP client alone at the same concurrency, on the same receiver ({@link DispatchReceiver}).
 *
 * <p>Destinations are endpoints per tenant ({@code endpoints: perTenant}: the dispatcher keeps a
 * lane per endpoint), {@code /d/0 .. /d/<n-1>} on the one receiver, each allowed
 * {@value #MAX_IN_FLIGHT} calls in flight ({@code maxInFlight}, per endpoint). Side A, the bare
 * loop ({@link BareLoop}), keeps {@code n × maxInFlight} POSTs of the same body in flight, the
 * destinations in turn. Side B is one dispatcher instance (its own consumer, producer, Redis
 * client and lanes, in this JVM beside the broker, with the relay that returns what its full
 * lanes defer round the ladder) on events written to {@code ready} beforehand
 * as the gate writes them (the tier and first-seen headers), a backlog larger than the window
 * (sized from side A's rate): first with every endpoint's rate far above what the machine does
 * ({@value #UNLIMITED}/s), then with each at a fixed rate, where what is checked is that the
 * rate holds at each destination.
 *
 * <p>Each side is measured over a window that starts a warm-up after its first call: calls the
 * receiver answered in it over its length, and the CPU of the bench's JVM (split by thread
 * family: the broker and the receiver apart from the sender) and of redis-server over those
 * calls. With both cores busy, calls per second is about cores over the CPU one call costs, so
 * the CPU per call says where the ratio comes from. With {@code profile}, side B at 100
 * destinations unlimited is recorded with JFR ({@code bench-results/dispatch-100.jfr}).
 */
final class DispatchScenario implements BenchScenario {
  /** Calls in flight per endpoint, the dispatcher's and the bare loop's. */
  static final int MAX_IN_FLIGHT = 4;
  /** An endpoint's rate when unlimited: far above what two cores can call. */
  static final double UNLIMITED = 100_000;
  private static final int PARTITIONS = 4;
  /**
   * The most events written ahead for one run. {@code bufferSize} and {@code bufferBytes} are
   * raised to the backlog; an endpoint's lane still queues at most
   * {@code ReadBudget.PER_ENDPOINT_LANE} (32) entries ({@code LaneFactory}), so what this changes
   * is how far the dispatcher reads ahead (a provider's {@code bufferSize} counts in the read
   * cap), not what a lane holds: beyond 32 an endpoint's events go round the delay ladder
   * (overflow, then the relay), and that is what the runs of issue 36 found taking the cores.
   */
  static final long MAX_BACKLOG = 350_000;
  /** What one event's record is counted as in the byte budget, at most (key, value, headers). */
  private static final long RECORD_BYTES = 700;
  private static final int RECEIVER_THREADS = 4;
  /** A typical event's payload (about 300 bytes of JSON), the body of every call. */
  static final String PAYLOAD = "{\"type\":\"invoice.paid\",\"invoice\":\"in_1PQR8sLkdIwHu7ix\","
      + "\"customer\":\"cus_Q1w2E3r4T5y6U7\",\"amount\":4200,\"currency\":\"eur\","
      + "\"lines\":[{\"sku\":\"plan-pro-monthly\",\"qty\":1,\"amount\":3900},"
      + "{\"sku\":\"addon-seats\",\"qty\":3,\"amount\":300}],"
      + "\"paidAt\":\"2026-11-29T16:00:00Z\",\"metadata\":{\"order\":\"ord_8812\","
      + "\"region\":\"eu-west-1\"}}";

  /** One side's window ({@code System.nanoTime()} from, to): calls, CPU per call, failures. */
  record Side(long calls, long fromNanos, long toNanos, CpuSnapshot.PerEvent cpu, long failed) {
    double seconds() {
      return (toNanos - fromNanos) / 1e9;
    }

    Side failed(long failed) {
      return new Side(calls, fromNanos, toNanos, cpu, failed);
    }

    double perSecond() {
      return seconds() <= 0 ? 0 : calls / seconds();
    }
  }

  /** A rate-limited run: each of {@code destinations} at {@code rate} per second. */
  private record Limited(int destinations, double rate) {}

  @Override
  public String name() {
    return "dispatch";
  }

  @Override
  public ScenarioResult run(BenchContext ctx) throws Exception {
    ScenarioResult r = new ScenarioResult(name(),
        "the dispatcher's cost per call against a bare HTTP loop");
    List<Integer> counts = ctx.quick() ? List.of(1, 10) : List.of(1, 100, 1_000);
    List<Limited> limited = ctx.quick() ? List.of(new Limited(10, 5))
        : List.of(new Limited(1, 500), new Limited(100, 5), new Limited(1_000, 0.5));
    // To measure again after a change without the whole table: -Dsluice.bench.dispatch.only=100
    // runs the unlimited pair at 100 destinations alone (no rate-limited rows).
    String only = System.getProperty("sluice.bench.dispatch.only");
    if (only != null && !only.isBlank()) {
      counts = Arrays.stream(only.split(",")).map(String::trim).map(Integer::valueOf).toList();
      limited = List.of();
    }
    double warmUp = ctx.quick() ? 0.5 : 3;
    double window = ctx.quick() ? 1 : 20;
    byte[] payload = PAYLOAD.getBytes(UTF_8);
    Double ratioAt100 = null;
    List<String> limitMisses = new ArrayList<>();
    try (DispatchReceiver receiver = DispatchReceiver.start(RECEIVER_THREADS)) {
      for (int n : counts) {
        Side bare = bare(ctx, receiver, n, payload, warmUp, window);
        row(r, String.format(Locale.ROOT, "bare HttpClient, %,d destination%s, %,d in flight", n,
            n == 1 ? "" : "s", n * MAX_IN_FLIGHT), bare, null, null);
        long events = Math.min(MAX_BACKLOG, Math.max(ctx.size(20_000, 2_000),
            Math.round(bare.perSecond() * (warmUp + window + 10) * 1.2)));
        Path jfr = !ctx.quick() && n == 100 ? Path.of("bench-results", "dispatch-100.jfr") : null;
        Side b = dispatcher(ctx, receiver, n, UNLIMITED, events, warmUp, window, jfr, null,
            new int[1]);
        double ratio = b.perSecond() / bare.perSecond();
        if (n == 100) {
          ratioAt100 = ratio;
        }
        row(r, String.format(Locale.ROOT, "dispatcher, %,d destination%s, unlimited", n,
            n == 1 ? "" : "s"), b, ratio, b.calls() >= events ? "the backlog ran out" : null);
        if (jfr != null) {
          DispatchProfile.Summary s = DispatchProfile.summarize(jfr);
          r.note("**profile** of the dispatcher at 100 destinations unlimited (JFR `profile`, "
              + "the measured window, " + jfr + "): " + s.describe(10) + ".");
          ctx.progress("dispatch: profile: %s", s.describe(15));
        }
      }
      for (Limited l : limited) {
        long events = Math.round(l.rate() * l.destinations() * (warmUp + window + 10));
        List<String> over = new ArrayList<>();
        int[] most = new int[1];
        Side s = dispatcher(ctx, receiver, l.destinations(), l.rate(), events, warmUp, window,
            null, over, most);
        String label = String.format(Locale.ROOT, "dispatcher, %,d destination%s, each at %s/s",
            l.destinations(), l.destinations() == 1 ? "" : "s", number(l.rate()));
        row(r, label, s, null, over.isEmpty() ? null : String.join("; ", over),
            "configured calls/s", l.rate() * l.destinations(),
            "most at one destination in 1 s", (long) most[0],
            "allowed at one destination in 1 s", (long) Math.ceil(l.rate()));
        if (!over.isEmpty()) {
          limitMisses.add(label);
        }
      }
    }
    r.target("dispatcher calls/s over the bare loop's, 100 destinations, unlimited", "≥ 0.50",
        ratioAt100 == null ? "not run" : String.format(Locale.ROOT, "%.2f", ratioAt100),
        ratioAt100 == null ? null : ratioAt100 >= 0.50);
    r.target("rate-limited: no destination above its rate", "every destination",
        limitMisses.isEmpty() ? "held" : "over at " + String.join(", ", limitMisses),
        limitMisses.isEmpty());
    r.note("**calls/s** are the calls the receiver answered (200, empty body) in a window of "
        + number(window) + " s that starts " + number(warmUp) + " s after the side's first call, "
        + "over the window; the dispatcher's backlog was written to `ready` before it started, "
        + "as the gate writes it, and outlasts the window (**note** says where it did not).");
    r.note("**bare HttpClient** is `java.net.http.HttpClient` alone (built as the dispatcher "
        + "builds its own: HTTP/1.1, two exchange threads), keeping " + MAX_IN_FLIGHT
        + " POSTs per destination in flight, the destinations in turn; the dispatcher has one "
        + "endpoint per tenant (`endpoints: perTenant`) per destination, each with maxInFlight "
        + MAX_IN_FLIGHT + "; the body is the same ~300-byte JSON payload.");
    r.note("**CPU per call** (µs): the bench's JVM (process CPU) and redis-server (`INFO cpu`) "
        + "over the window's calls; the JVM's is split by thread: **broker** (the KRaft broker "
        + "in this JVM: the dispatcher's fetches, its outcome records and offset commits), "
        + "**receiver** (the server's threads, the same work on both sides), and **sender** (the "
        + "rest: the bare loop or the dispatcher with its Kafka and Redis clients, HTTP client, "
        + "GC and JIT). **cores busy** is the JVM's and redis-server's CPU over the window.");
    r.note("**ratio to bare** is the dispatcher's calls/s over the bare loop's at the same "
        + "destinations, measured one after the other on the same receiver.");
    r.note("**rate-limited** rows: each destination's own leak at the rate shown; **most at one "
        + "destination in 1 s** slides a second over every arrival of each destination and "
        + "keeps the largest, beside the most its rate allows (⌈rate⌉).");
    return r;
  }

  private static void row(ScenarioResult r, String label, Side s, Double ratio, String note,
      Object... limited) {
    CpuSnapshot.PerEvent cpu = s.cpu();
    double jvm = cpu.machineMicros() - cpu.redisMicros();
    double broker = cpu.breakdown().getOrDefault(CpuSnapshot.BROKER, 0.0);
    double receiver = cpu.breakdown().getOrDefault(CpuSnapshot.RECEIVER, 0.0);
    List<Object> figures = new ArrayList<>(List.of("calls/s", s.perSecond(),
        "ratio to bare", ratio == null ? "" : ratio, "calls measured", s.calls(),
        "JVM CPU per call (µs)", jvm, "of which broker (µs)", broker,
        "of which receiver (µs)", receiver, "of which sender (µs)", jvm - broker - receiver,
        "redis-server CPU per call (µs)", cpu.redisMicros(),
        "cores busy", cpu.machineMicros() * s.calls() / 1e6 / s.seconds(),
        "failed calls", s.failed()));
    figures.addAll(List.of(limited));
    figures.addAll(List.of("note", note == null ? "" : note));
    r.row(label, figures.toArray());
  }

  /** Side A: the bare loop toward {@code n} destinations. */
  private static Side bare(BenchContext ctx, DispatchReceiver receiver, int n, byte[] body,
      double warmUp, double window) throws Exception {
    receiver.reset();
    List<URI> destinations = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      destinations.add(receiver.url("/d/" + i));
    }
    HttpClient client = HttpProvider.defaultClient(Duration.ofSeconds(5));
    Side s;
    try (BareLoop loop = new BareLoop(client, destinations, body)) {
      loop.start(n * MAX_IN_FLIGHT);
      s = measure(ctx, receiver::calls, warmUp, window, null);
      s = s.failed(loop.failed());
    }
    ctx.progress("dispatch: bare, %d destinations: %.0f calls/s", n, s.perSecond());
    return s;
  }

  /**
   * Side B: one dispatcher on {@code events} events for {@code n} destinations at {@code rate}
   * each; with {@code over}, each destination's calls held to its rate (what breaks it added).
   */
  private static Side dispatcher(BenchContext ctx, DispatchReceiver receiver, int n, double rate,
      long events, double warmUp, double window, Path jfr, List<String> over, int[] most)
      throws Exception {
    receiver.reset();
    SluiceConfig config = ConfigLoader.parse(yaml(ctx, receiver, n, rate, events,
        BenchContext.unique("dispatch")), Map.of());
    BenchPipeline.createTopics(config, PARTITIONS);
    Side s;
    try {
      preloadReady(config, n, events);
      // The relay too: a lane's queue is bounded, and what it cannot hold goes round the ladder.
      try (RelayService relay = RelayService.start(config, RelayListener.NONE);
          DispatcherService d = DispatcherService.start(config, DispatchListener.NONE)) {
        BenchPipeline.await(() -> receiver.calls() > 0, Duration.ofSeconds(60), "a first call");
        s = measure(ctx, receiver::calls, warmUp, window, jfr);
        if (over != null) {
          most[0] = heldToRate(receiver.arrivals(), rate, s.fromNanos(), s.toNanos(), over);
        }
      }
    } finally {
      BenchPipeline.deleteTopics(config);
    }
    ctx.progress("dispatch: dispatcher, %d destinations at %s/s: %.0f calls/s", n, number(rate),
        s.perSecond());
    return s;
  }

  /**
   * Adds to {@code over} each way a destination went above {@code rate}; returns the most calls
   * one destination had in any second.
   */
  static int heldToRate(Map<String, long[]> arrivals, double rate, long from, long to,
      List<String> over) {
    int allowed = (int) Math.ceil(rate);
    double seconds = (to - from) / 1e9;
    int most = 0;
    long busiest = 0;
    for (long[] times : arrivals.values()) {
      most = Math.max(most, BenchStats.maxInWindow(times, 1_000_000_000L));
      busiest = Math.max(busiest, Arrays.stream(times).filter(t -> t >= from && t < to).count());
    }
    if (most > allowed) {
      over.add(String.format(Locale.ROOT, "%d calls at one destination in 1 s, %d allowed", most,
          allowed));
    }
    // A leak at the rate fits at most rate × seconds + 1 calls in any window of that length.
    if (busiest > Math.floor(rate * seconds) + 1) {
      over.add(String.format(Locale.ROOT, "%d calls at one destination in %.1f s at %s/s",
          busiest, seconds, number(rate)));
    }
    return most;
  }

  /** Waits {@code warmUp}, then measures {@code window} seconds (recorded into {@code jfr}). */
  private static Side measure(BenchContext ctx, LongSupplier calls, double warmUp, double window,
      Path jfr) throws Exception {
    sleep(warmUp);
    DispatchProfile profile = jfr == null ? null : DispatchProfile.start(jfr);
    CpuSnapshot before = CpuSnapshot.take(ctx.redis());
    long first = calls.getAsLong();
    sleep(window);
    long last = calls.getAsLong();
    CpuSnapshot after = CpuSnapshot.take(ctx.redis());
    if (profile != null) {
      profile.close();
    }
    return new Side(last - first, before.wallNanos(), after.wallNanos(),
        before.to(after, last - first, 1), 0);
  }

  private static void sleep(double seconds) {
    long until = System.nanoTime() + (long) (seconds * 1e9);
    BenchPipeline.await(() -> System.nanoTime() >= until,
        Duration.ofSeconds((long) seconds + 10), "the end of a wait");
  }

  /** {@code events} events on {@code ready}, event i for destination i mod n, as the gate writes them. */
  private static void preloadReady(SluiceConfig config, int n, long events) {
    String ready = new Topics(config.kafka().topicPrefix(), config.ladder()).ready();
    Map<String, Object> bulk = Map.of(ProducerConfig.LINGER_MS_CONFIG, 20,
        ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024, ProducerConfig.ACKS_CONFIG, "1",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
        config.kafka().clientProperties(bulk), new ByteArraySerializer(),
        new ByteArraySerializer())) {
      long now = System.currentTimeMillis();
      for (long i = 0; i < events; i++) {
        String tenant = "d" + (i % n);
        String json = "{\"id\":\"e" + i + "\",\"tenant\":\"" + tenant + "\",\"provider\":\""
            + BenchConfig.PROVIDER + "\",\"cost\":1,\"payload\":" + PAYLOAD + "}";
        RecordHeaders headers = new RecordHeaders();
        HeaderValues.put(headers, HeaderNames.TIER, "free");
        HeaderValues.put(headers, HeaderNames.FIRST_SEEN, now);
        producer.send(new ProducerRecord<>(ready, null, now, tenant.getBytes(UTF_8),
            json.getBytes(UTF_8), headers));
      }
      producer.flush();
    }
  }

  /** One provider with an endpoint per tenant, tenants d0..d(n-1) each toward /d/i. */
  static String yaml(BenchContext ctx, DispatchReceiver receiver, int n, double rate,
      long events, String prefix) {
    StringBuilder y = new StringBuilder();
    y.append("kafka: { bootstrap: \"").append(ctx.bootstrap()).append("\", topicPrefix: \"")
        .append(prefix).append(".\" }\n");
    y.append("redis: { uri: \"").append(ctx.redisUri()).append("\" }\n");
    y.append("tiers: { free: { weight: 1 } }\ndefaultTier: free\n");
    y.append("providers:\n  ").append(BenchConfig.PROVIDER).append(":\n");
    y.append("    endpoints: perTenant\n    allowPrivateNetworks: true\n"
        + "    allowPlainHttp: true\n");
    y.append("    rate: ").append(number(rate)).append("/s\n");
    y.append("    maxInFlight: ").append(MAX_IN_FLIGHT).append("\n    timeout: 5s\n");
    y.append("    quotas: { free: { capacity: 1000000, refill: 1000000/s } }\n");
    y.append("tenants:\n");
    for (int i = 0; i < n; i++) {
      y.append("  d").append(i).append(": { endpoints: { ").append(BenchConfig.PROVIDER)
          .append(": \"").append(receiver.url("/d/" + i)).append("\" } }\n");
    }
    y.append("gate: { applicationId: \"").append(prefix).append("-gate\" }\n");
    // bufferSize: each lane's part of the backlog (an endpoint lane still queues 32 at most);
    // bufferBytes: each endpoint's byte account (an eighth of the provider's) the whole of it.
    long perLane = (events + n - 1) / n + 64;
    long bytes = Math.min(Integer.MAX_VALUE - 1L, Math.max(64L << 20, events * RECORD_BYTES * 8));
    // -Dsluice.bench.dispatch.bufferSize=N sets it instead (32: the read cap no more than the
    // endpoint lanes' own room, the finding of issue 36's runs).
    long bufferSize = Long.getLong("sluice.bench.dispatch.bufferSize", Math.max(1000, perLane));
    y.append("dispatcher: { groupId: \"").append(prefix).append("-dispatcher\", bufferSize: ")
        .append(bufferSize).append(", bufferBytes: ").append(bytes).append(" }\n");
    y.append("http: { port: 0 }\n");
    return y.toString();
  }

  private static String number(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
