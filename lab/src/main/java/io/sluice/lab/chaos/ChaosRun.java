package io.sluice.lab.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.app.TopicAdmin;
import io.sluice.app.Verify;
import io.sluice.config.ConfigLoader;
import io.sluice.config.Quota;
import io.sluice.config.SluiceConfig;
import io.sluice.embedded.RedisServerProcess;
import io.sluice.embedded.StandaloneKafkaBroker;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import io.sluice.schemas.topic.Topics;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * One chaos run. Sluice's roles run as separate OS processes (a gate, a relay, two dispatchers),
 * against a broker process and a redis-server process; the providers are an HTTP server in this
 * process. While events are produced, the roles are SIGKILLed and restarted, Redis and the broker
 * are SIGKILLed and restarted, and the providers go through phases of 500s, timeouts, a 429 storm
 * and slow answers. Then the run waits (bounded) for every event to end somewhere and reports.
 */
public final class ChaosRun {
  static final List<String> ROLES = List.of("gate", "relay", "dispatch-a", "dispatch-b");
  /** After Redis answers again, a circuit still open may take up to its longest probe delay. */
  static final long CIRCUIT_GRACE_MILLIS = 10_000;
  /** How many lost ids the report names, with where each was last seen. */
  static final int LISTED_LOST = 20;
  static final String ADMISSIONS_FROM = "the gate's admission instants (timestamps of the records "
      + "in sluice.ready: the admission time, or a paid record's due time; the earliest per id)";

  private final ChaosOptions options;
  private final PrintStream out;
  private final Path work;
  private final ChildJvm.Launch launch;
  private final Map<String, Integer> kills = new TreeMap<>();
  private final List<long[]> redisOutages = new CopyOnWriteArrayList<>();
  private final List<long[]> brokerOutages = new CopyOnWriteArrayList<>();
  private final List<DuplicateCauses.Fault> faultLog = new CopyOnWriteArrayList<>();
  /** Each fault from its start until the part it hit was back (and had taken up its work). */
  private final List<GapReasons.Window> faultWindows = new CopyOnWriteArrayList<>();
  private final List<ChildJvm> roles = new CopyOnWriteArrayList<>();
  private int roleRestarts;
  private int redisRestarts;
  private int brokerRestarts;
  private volatile long loadStart = Long.MAX_VALUE;
  /** The operator pausing and resuming a tenant; set when the load starts. */
  private volatile ChaosOperator operator;

  private ChaosRun(ChaosOptions options, PrintStream out, Path work) {
    this.options = options;
    this.out = out;
    this.work = work;
    String java = ProcessHandle.current().info().command().orElse("java");
    this.launch = new ChildJvm.Launch(java, options.classPath());
  }

  /** Runs the chaos and returns its report (written to {@code report.json} in the work dir too). */
  public static ChaosReport run(ChaosOptions options, PrintStream out) throws Exception {
    boolean temporary = options.workDirectory() == null;
    Path work = temporary ? Files.createTempDirectory("sluice-chaos-")
        : Files.createDirectories(options.workDirectory());
    ChaosReport report = new ChaosRun(options, out, work).execute();
    report.writeJson(work.resolve("report.json"));
    if (temporary && report.failures().isEmpty()) {
      deleteRecursively(work);
    } else {
      out.println("chaos: logs, configuration and report in " + work);
    }
    return report;
  }

  private ChaosReport execute() throws Exception {
    long loadMillis = options.loadSeconds() * 1000;
    int kafkaPort = freePort();
    String bootstrap = "localhost:" + kafkaPort;
    List<String> brokerCommand = new ArrayList<>(ChildJvm.javaCommand(launch, "768m",
        StandaloneKafkaBroker.class.getName(), List.of(work.resolve("broker").toString(),
            Integer.toString(kafkaPort), Integer.toString(freePort()))));
    // The transaction coordinator at INFO: after a restart it skips the markers of a partition it
    // finds no leader for ("likely deleted"), which leaves a hanging transaction, and it says so
    // only at INFO. The rest at WARN, as the jar's logback.xml has the libraries.
    Path brokerLogging = work.resolve("broker-logback.xml");
    Files.writeString(brokerLogging, """
        <configuration>
          <appender name="text" class="ch.qos.logback.core.ConsoleAppender">
            <target>System.err</target>
            <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{1}: %msg%n</pattern></encoder>
          </appender>
          <logger name="kafka.coordinator.transaction" level="INFO"/>
          <root level="WARN"><appender-ref ref="text"/></root>
        </configuration>
        """);
    brokerCommand.add(1, "-Dlogback.configurationFile=" + brokerLogging);
    ChildJvm broker = new ChildJvm("broker", brokerCommand, work.resolve("broker.log"));
    ScheduledExecutorService supervisor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "chaos-supervisor");
      t.setDaemon(true);
      return t;
    });
    // If this JVM is stopped (Ctrl-C, a test's timeout), no child may outlive it.
    Thread reaper = new Thread(() -> {
      roles.forEach(ChildJvm::kill);
      broker.kill();
    }, "chaos-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
    try (RedisServerProcess redis = RedisServerProcess.start();
        ChaosProvider provider = new ChaosProvider(ChaosScenario.PROVIDER_LIMIT,
            ChaosScenario.PROVIDER_TIMEOUT_MILLIS + 1_000,
            () -> System.currentTimeMillis() - loadStart, loadMillis)) {
      try {
        out.printf("chaos: work directory %s%n", work);
        broker.start();
        awaitBroker(bootstrap, Duration.ofSeconds(120));
        Path configFile = work.resolve("sluice.yaml");
        Files.writeString(configFile, ChaosScenario.yaml(bootstrap, redis.uri(), provider::url,
            options.maxRetryAfterSeconds()));
        SluiceConfig config = ConfigLoader.load(configFile, Map.of());
        try (TopicAdmin admin = new TopicAdmin(config)) {
          admin.create(4, (short) 1);
        }
        for (String role : ROLES) {
          String command = role.startsWith("dispatch") ? "dispatch" : role;
          roles.add(new ChildJvm(role, ChildJvm.sluiceCommand(launch, "320m",
              List.of(command, "--config", configFile.toString())), work.resolve(role + ".log")));
        }
        roles.forEach(ChildJvm::start);
        // A role that exits by itself (it found the broker away at start) is started again.
        supervisor.scheduleWithFixedDelay(() -> {
          roles.forEach(ChildJvm::reviveIfExited);
          broker.reviveIfExited();
        }, 1, 1, TimeUnit.SECONDS);

        loadStart = System.currentTimeMillis();
        provider.deadWhile("/" + ChaosScenario.HOOKS + "/" + ChaosScenario.DEAD_TENANT,
            (long) (ChaosScenario.DEAD_FROM * loadMillis), (long) (ChaosScenario.DEAD_TO * loadMillis));
        operator = new ChaosOperator(launch, configFile, work.resolve("operator.log"), out,
            loadStart, loadMillis);
        Thread operating = new Thread(operator, "chaos-operator");
        operating.setDaemon(true);
        operating.start();
        Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
        ChaosLoad load = new ChaosLoad(bootstrap, topics.inbound(), options.events(), loadMillis,
            loadStart, options.seed());
        Thread loader = new Thread(load, "chaos-load");
        loader.setDaemon(true);
        loader.start();
        out.printf("chaos: %d events over %d s, %d kills, %d redis and %d broker restarts%n",
            options.events(), options.loadSeconds(), options.kills(), options.redisRestarts(),
            options.brokerRestarts());
        List<FaultPlan.Fault> plan = FaultPlan.of(ROLES, options.kills(),
            options.redisRestarts(), options.brokerRestarts(), loadMillis, options.seed());
        for (FaultPlan.Fault f : plan) {
          sleepUntil(loadStart + f.atMillis());
          inject(f, redis, broker, bootstrap);
        }
        loader.join();
        operating.join();
        sleepUntil(loadStart + loadMillis);
        long loadEnd = System.currentTimeMillis();
        out.printf("chaos: load done (%d acknowledged); waiting for the pipeline to settle%n",
            load.acknowledged().size());

        boolean settled = awaitSettled(bootstrap, topics, load.acknowledged().size(),
            loadEnd + options.settleSeconds() * 1000);
        long settleSeconds = (System.currentTimeMillis() - loadEnd) / 1000;
        awaitQuiet(provider, Duration.ofSeconds(3), Duration.ofSeconds(15));
        supervisor.shutdownNow();
        ChildJvm.stopAll(roles, 15);

        return measure(config, topics, bootstrap, load, provider, broker, settled,
            settleSeconds);
      } finally {
        supervisor.shutdownNow();
        ChildJvm.stopAll(roles, 10);
        broker.stop(20);
      }
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(reaper);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook runs
      }
    }
  }

  /** The figures, once the roles have stopped: nothing changes in the topics any more. */
  private ChaosReport measure(SluiceConfig config, Topics topics, String bootstrap,
      ChaosLoad load, ChaosProvider provider, ChildJvm broker, boolean settled,
      long settleSeconds) throws IOException {
    Duration timeout = Duration.ofSeconds(60);
    long events = load.acknowledged().size();
    Verify.Report verify = Verify.run(bootstrap, topics, timeout);
    // Every acknowledged id must be in inbound (verify's unique ids) and end somewhere.
    long lost = verify.missing().size() + Math.max(0, events - verify.uniqueIds());
    List<String> pipeline = new ArrayList<>(List.of(topics.inbound(), topics.regate(),
        topics.ready()));
    topics.ladder().forEach(step -> pipeline.add(topics.delay(step)));
    LostTrail.Trail trail = LostTrail.of(bootstrap, pipeline, verify.missing(), LISTED_LOST,
        timeout);
    List<ChaosReport.PairFigure> pairs = overAdmission(config,
        Admissions.read(bootstrap, topics.ready(), timeout));
    Set<String> producedTwice = Admissions.producedTwice(bootstrap, topics.inbound(), timeout);
    List<ArrivalFigures.Arrival> arrivals = provider.arrivals();
    writeArrivals(arrivals, work.resolve("arrivals.csv"));
    ArrivalFigures.Figures calls = ArrivalFigures.of(arrivals);
    String hostile = HostileFigures.describe(HostileFigures.of(provider.hostileAnswers(), arrivals),
        options.maxRetryAfterSeconds());
    Files.writeString(work.resolve("hostile.txt"), hostile + "\n");
    out.println("chaos: " + hostile);
    DuplicateCauses.Attribution causes = DuplicateCauses.of(arrivals,
        Admissions.identicalCopies(bootstrap, topics.ready(), timeout), producedTwice, faultLog,
        ChaosScenario.PROVIDER_TIMEOUT_MILLIS);
    Map<String, Long> gaps = new TreeMap<>();
    calls.longestGapByProvider().forEach((p, g) -> gaps.put(p, g.millis()));
    long pausedFrom = operator.pausedFrom();
    long pausedTo = operator.pausedTo();
    List<GapReasons.Window> windows = GapReasons.visibleReasons(faultWindows, provider.hostileAnswers(),
        options.maxRetryAfterSeconds() * 1000L + 1_000, ChaosScenario.PAUSED_TENANT, pausedFrom, pausedTo,
        arrivals);
    List<GapReasons.GapFigure> longGaps = GapReasons.of(arrivals, gapMarks(bootstrap, topics,
        timeout), windows, loadStart);
    int unexpected = roles.stream().mapToInt(ChildJvm::unexpectedExits).sum()
        + broker.unexpectedExits();
    long loadMillis = options.loadSeconds() * 1000;
    Map<String, Object> isolation = IsolationFigures.of(arrivals, load.destinations(),
        ChaosScenario.PAUSED_TENANT, new IsolationFigures.Window(pausedFrom,
            pausedTo < 0 ? Long.MAX_VALUE : pausedTo), ChaosScenario.DEAD_TENANT,
        ChaosScenario.HOOKS, new IsolationFigures.Window(
            loadStart + (long) (ChaosScenario.DEAD_FROM * loadMillis),
            loadStart + (long) (ChaosScenario.DEAD_TO * loadMillis)), loadStart);
    List<String> failures = new ArrayList<>(ChaosReport.judge(lost, pairs, settled,
        GapReasons.idleWithoutReason(longGaps,
            (windows.stream().mapToLong(GapReasons.Window::toMillis).max().orElse(loadStart)
                - loadStart) / 1000.0)));
    failures.addAll(IsolationFigures.failures(isolation));
    Map<String, Integer> deliveredCalls = new HashMap<>();
    arrivals.stream().filter(a -> a.status() >= 200 && a.status() < 300)
        .forEach(a -> deliveredCalls.merge(a.key(), 1, Integer::sum));
    List<String> delaySteps = topics.ladder().stream().map(topics::delay).toList();
    Map<String, Object> settlementCopies = SettlementCopies.read(bootstrap,
        List.of(topics.outcomes(), topics.dlq()), delaySteps, deliveredCalls, timeout);
    failures.addAll(SettlementCopies.failures(settlementCopies));
    return new ChaosReport(options.asMap(), events, load.failed(), producedTwice.size(), kills,
        roleRestarts, unexpected, redisRestarts, brokerRestarts, settled, settleSeconds,
        verify.uniqueIds(), verify.delivered(), verify.deadLettered(), verify.deadByReason(),
        lost, verify.missing().stream().limit(LISTED_LOST).toList(), trail.lastSeen(),
        trail.lastSeenByPlace(), trail.heldBack(), abortedHangingTransactions(), calls.calls(),
        calls.duplicates(), events == 0 ? 0 : 100.0 * calls.duplicates() / events,
        calls.maxDeliveriesOfOneId(), causes.byCause(), causes.byPrecedingFault(),
        calls.longestGap().millis(),
        (calls.longestGap().fromMillis() - loadStart) / 1000.0, gaps, longGaps,
        calls.tooManyOutsideStorm(), calls.stormAnswers(), ADMISSIONS_FROM, pairs,
        faultLog.stream().map(DuplicateCauses.Fault::label).toList(), isolation,
        settlementCopies, failures);
  }

  private void inject(FaultPlan.Fault f, RedisServerProcess redis, ChildJvm broker,
      String bootstrap) throws InterruptedException {
    long since = (System.currentTimeMillis() - loadStart) / 1000;
    long at = System.currentTimeMillis();
    faultLog.add(new DuplicateCauses.Fault(at, String.format("%.1f s %s %s",
        (at - loadStart) / 1000.0, f.kind(), f.target()),
        f.kind() == FaultPlan.Kind.KILL_ROLE && f.target().startsWith("dispatch")));
    switch (f.kind()) {
      case KILL_ROLE -> {
        ChildJvm role = roles.stream().filter(r -> r.name().equals(f.target())).findFirst()
            .orElseThrow();
        out.printf("chaos: %4d s  kill -9 %s (pid %d)%n", since, role.name(), role.pid());
        role.kill();
        kills.merge(role.name(), 1, Integer::sum);
        Thread.sleep(f.downMillis()); // the fault's planned downtime
        role.start();
        roleRestarts++;
        // A dispatcher's partitions move within 6 s of its death; a restarted role joins again.
        faultWindows.add(new GapReasons.Window(at, System.currentTimeMillis() + 6_000,
            role.name() + " killed"));
      }
      case RESTART_REDIS -> {
        out.printf("chaos: %4d s  kill -9 redis-server, %d ms down%n", since, f.downMillis());
        long from = System.currentTimeMillis();
        redis.kill();
        Thread.sleep(f.downMillis());
        redis.restart();
        redisOutages.add(new long[] {from, System.currentTimeMillis()});
        redisRestarts++;
        faultWindows.add(new GapReasons.Window(at, System.currentTimeMillis() + CIRCUIT_GRACE_MILLIS,
            "Redis away (circuits, leak)"));
      }
      case RESTART_BROKER -> {
        out.printf("chaos: %4d s  kill -9 the broker, %d ms down%n", since, f.downMillis());
        long from = System.currentTimeMillis();
        broker.kill();
        Thread.sleep(f.downMillis());
        broker.start();
        awaitBroker(bootstrap, Duration.ofSeconds(120));
        brokerOutages.add(new long[] {from, System.currentTimeMillis()});
        brokerRestarts++;
        // Up again; the groups then form again (a session timeout, a rebalance).
        faultWindows.add(new GapReasons.Window(at, System.currentTimeMillis() + 10_000,
            "the broker away"));
      }
    }
  }

  /**
   * Over-admission per (provider, tenant). Windows overlapping a Redis outage (until the circuit's
   * grace has passed, and a broker outage begun meanwhile: {@link RedisOutageWindows}) are judged by the policy's own bound: {@code fail_open} admits without a
   * bucket (not judged), {@code local} may admit one more capacity (README), {@code fail_closed}
   * admits nothing without Redis (judged as usual).
   */
  private List<ChaosReport.PairFigure> overAdmission(SluiceConfig config,
      Map<Admissions.Key, List<OverAdmission.Admission>> admissions) {
    List<ChaosReport.PairFigure> pairs = new ArrayList<>();
    List<long[]> gateCircuits = gateCircuits();
    List<Admissions.Key> keys = new ArrayList<>(admissions.keySet());
    keys.sort(Comparator.comparing(Admissions.Key::provider).thenComparing(Admissions.Key::tenant));
    for (Admissions.Key k : keys) {
      Quota quota = config.quotaOf(k.provider(), k.tenant()).orElse(null);
      if (quota == null) {
        continue;
      }
      String policy = ChaosScenario.PROVIDERS.getOrDefault(k.provider(), "?");
      double extra = switch (policy) {
        case "fail_open" -> Double.POSITIVE_INFINITY;
        case "local" -> quota.capacity();
        default -> 0;
      };
      List<OverAdmission.Excuse> excuses = new ArrayList<>();
      if (extra > 0) {
        for (long[] o : RedisOutageWindows.of(redisOutages, brokerOutages, CIRCUIT_GRACE_MILLIS)) {
          excuses.add(new OverAdmission.Excuse(o[0], o[1], extra));
        }
        for (long[] o : gateCircuits) {
          excuses.add(new OverAdmission.Excuse(o[0], o[1], extra));
        }
      }
      List<OverAdmission.Admission> list = admissions.get(k);
      OverAdmission.Worst w = OverAdmission.worst(list, quota.capacity(),
          quota.refill().perSecond(), excuses);
      pairs.add(new ChaosReport.PairFigure(k.provider(), policy, k.tenant(), list.size(),
          quota.capacity(), quota.refill().perSecond(), w.excess(),
          (w.fromMillis() - loadStart) / 1000.0, w.toMillis() - w.fromMillis(), w.count(),
          w.overAdmitted()));
    }
    return pairs;
  }

  /**
   * The windows the gate's circuit was open by its own log ({@link CircuitOutages}): Redis timing
   * out on a loaded machine as well as the outages the run makes.
   */
  private List<long[]> gateCircuits() {
    Path log = work.resolve("gate.log");
    try {
      return Files.exists(log)
          ? CircuitOutages.of(new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList(),
              ZoneId.systemDefault())
          : List.of();
    } catch (IOException | UncheckedIOException e) {
      out.println("chaos: could not read " + log + " (" + e + "); the gate's own circuit windows are not excused");
      return List.of();
    }
  }

  private boolean awaitSettled(String bootstrap, Topics topics, int produced, long deadline)
      throws InterruptedException {
    while (true) {
      try {
        Verify.Report r = Verify.run(bootstrap, topics, Duration.ofSeconds(60));
        out.printf("chaos: %d of %d ids ended (%d delivered, %d dead), %d missing%n",
            r.delivered() + r.deadLettered(), produced, r.delivered(), r.deadLettered(),
            r.missing().size());
        if (r.complete() && r.uniqueIds() >= produced) {
          return true;
        }
      } catch (RuntimeException e) {
        out.println("chaos: verify failed (" + e.getMessage() + "); trying again");
      }
      if (System.currentTimeMillis() > deadline) {
        return false;
      }
      Thread.sleep(5_000); // polling verify, a condition with a deadline
    }
  }

  /** Waits until the providers got no call for {@code quiet}, at most {@code bound}. */
  private static void awaitQuiet(ChaosProvider provider, Duration quiet, Duration bound)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + bound.toMillis();
    while (System.currentTimeMillis() < deadline
        && System.currentTimeMillis() - provider.lastArrivalMillis() < quiet.toMillis()) {
      Thread.sleep(500);
    }
  }

  private static void awaitBroker(String bootstrap, Duration timeout) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeout.toMillis();
    RuntimeException last = null;
    while (System.currentTimeMillis() < deadline) {
      try (Admin admin = Admin.create(Map.of(
          AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
          AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000,
          AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5_000))) {
        if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
          return;
        }
      } catch (Exception e) {
        last = new IllegalStateException(e);
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("the broker at " + bootstrap + " did not come up within "
        + timeout, last);
  }

  /**
   * Each id's records in inbound, ready and the delay topics, for {@link GapReasons}: where the
   * events were while the providers got no call.
   */
  private static Map<String, List<GapReasons.Mark>> gapMarks(String bootstrap, Topics topics,
      Duration timeout) {
    Map<String, List<GapReasons.Mark>> marks = new HashMap<>();
    List<String> delays = topics.ladder().stream().map(topics::delay).toList();
    List<String> all = new ArrayList<>(List.of(topics.inbound(), topics.ready()));
    all.addAll(delays);
    for (String topic : all) {
      GapReasons.Place place = topic.equals(topics.inbound()) ? GapReasons.Place.INBOUND
          : topic.equals(topics.ready()) ? GapReasons.Place.READY : GapReasons.Place.DELAY;
      TopicScan.each(bootstrap, topic, timeout, r -> {
        String id = eventId(r.value());
        if (id != null) {
          long notBefore = place != GapReasons.Place.DELAY ? 0
              : HeaderValues.lastLong(r.headers(),
                  HeaderNames.NOT_BEFORE).orElse(0L);
          String reason = place != GapReasons.Place.DELAY ? ""
              : HeaderValues.last(r.headers(),
                  HeaderNames.REASON).orElse("");
          marks.computeIfAbsent(id, k -> new ArrayList<>())
              .add(new GapReasons.Mark(place, r.timestamp(), notBefore, reason));
        }
      });
    }
    return marks;
  }

  private static String eventId(byte[] value) {
    if (value == null) {
      return null;
    }
    try {
      JsonNode n = Json.mapper().readTree(value);
      return n != null && n.hasNonNull("id") ? n.get("id").asText() : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Every arrival, for a look at the timeline: seconds since the load started. */
  private void writeArrivals(List<ArrivalFigures.Arrival> arrivals, Path file) throws IOException {
    StringBuilder csv = new StringBuilder("second,provider,idempotency_key,status,storm\n");
    for (ArrivalFigures.Arrival a : arrivals) {
      csv.append(String.format("%.3f,%s,%s,%d,%s%n", (a.atMillis() - loadStart) / 1000.0,
          a.provider(), a.key(), a.status(), a.storm()));
    }
    Files.writeString(file, csv);
  }

  private static void sleepUntil(long epochMillis) throws InterruptedException {
    long wait = epochMillis - System.currentTimeMillis();
    if (wait > 0) {
      Thread.sleep(wait); // the fault plan's schedule
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * How many hanging transactions the roles aborted (their log lines of
   * HangingTransactionSweeper): a run that recovered from one says so even when it passes.
   */
  private long abortedHangingTransactions() throws IOException {
    long aborted = 0;
    for (String role : ROLES) {
      Path log = work.resolve(role + ".log");
      if (Files.exists(log)) {
        try (Stream<String> lines = Files.lines(log)) {
          aborted += lines.filter(l -> l.contains("hanging transaction on")
              && l.endsWith("aborted it")).count();
        }
      }
    }
    return aborted;
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }
}
