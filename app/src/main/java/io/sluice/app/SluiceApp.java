package io.sluice.app;

import com.codahale.metrics.MetricRegistry;
import io.sluice.app.hanging.AdminTransactionsView;
import io.sluice.app.hanging.HangingTransactionSweeper;
import io.sluice.app.hanging.OpenTransaction;
import io.sluice.app.hanging.SluiceTransactionalIds;
import io.sluice.app.supervise.RestartPolicy;
import io.sluice.app.supervise.RoleSupervisor;
import io.sluice.app.supervise.Supervision;
import io.sluice.dispatcher.dispatch.DispatcherService;
import io.sluice.dispatcher.dispatch.Waits;
import io.sluice.app.ops.CircuitHealth;
import io.sluice.app.ops.HangingTransactionsHealth;
import io.sluice.app.ops.LearnedLimitsHealth;
import io.sluice.app.ops.Health;
import io.sluice.app.ops.HealthCheck;
import io.sluice.app.ops.JmxExposure;
import io.sluice.app.ops.KafkaReachability;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.app.admin.AdminApi;
import io.sluice.app.admin.LagWatcher;
import io.sluice.app.admin.StatusCache;
import io.sluice.app.admin.StatusReader;
import io.sluice.app.ops.OpsServer;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.app.ops.PausesHealth;
import io.sluice.app.ops.TenantRegistryHealth;
import io.sluice.app.ops.RedisReachability;
import io.sluice.app.ops.RoleStatus;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.redis.RedisAccess;
import io.sluice.redis.operator.OperatorJournal;
import io.sluice.app.state.CacheKeeper;
import io.sluice.redis.tenants.TenantRegistry;
import io.sluice.redis.tenants.TenantWatcher;
import io.sluice.config.LiveConfig;
import io.sluice.config.ProviderConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.relay.RelayService;
import io.sluice.gate.Gate;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.DoubleSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import io.sluice.app.tracing.OtelTracer;
import io.sluice.schemas.trace.StageTracer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running application: the roles asked for, each under a {@link RoleSupervisor}, their
 * metrics, JMX and the {@code /metrics}, {@code /ready}, {@code /live} and {@code /health}
 * endpoint. Closing stops the dispatcher first (its calls in flight finish and are
 * committed), then the relay, then the gate, so work moves downstream and nothing is cut mid-way.
 */
public final class SluiceApp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SluiceApp.class);

  /** The roles of one jar. */
  public enum Role { GATE, RELAY, DISPATCHER }

  private static final Duration HANGING_PATIENCE = Duration.ofSeconds(30);
  private static final Duration HANGING_INTERVAL = Duration.ofSeconds(5);

  private final List<AutoCloseable> stopOrder = new ArrayList<>();
  private final SluiceMetrics metrics;
  private final Supervision supervision;
  private RoleSupervisor<Gate> gate;
  private RoleSupervisor<RelayService> relay;
  private RoleSupervisor<DispatcherService> dispatcher;
  private OpsServer ops;
  private LiveConfig live;

  private SluiceApp(SluiceMetrics metrics, Supervision supervision) {
    this.metrics = metrics;
    this.supervision = supervision;
  }

  /**
   * Checks the servers and topics, then starts the roles.
   *
   * @param providers in-process providers by name; null for HTTP providers from the config
   * @param httpPort  where to serve /metrics and /health; negative for no endpoint
   * @throws Preflight.Unreachable when Kafka or Redis does not answer, or topics are missing
   */
  public static SluiceApp start(SluiceConfig config, Set<Role> roles,
      Map<String, Provider> providers, MetricRegistry registry, int httpPort) {
    return start(new LiveConfig(config), roles, providers, registry, httpPort);
  }

  /**
   * {@link #start(SluiceConfig, Set, Map, MetricRegistry, int)}, following {@code live}: a reload
   * (see {@link ConfigWatcher}) reaches the roles without a restart.
   */
  public static SluiceApp start(LiveConfig live, Set<Role> roles,
      Map<String, Provider> providers, MetricRegistry registry, int httpPort) {
    return start(live, roles, providers, registry, httpPort, Supervision.standard());
  }

  /**
   * {@link #start(LiveConfig, Set, Map, MetricRegistry, int)}, the roles supervised as
   * {@code supervision} says (tests: a short check interval, an exit that records the code).
   */
  public static SluiceApp start(LiveConfig live, Set<Role> roles,
      Map<String, Provider> providers, MetricRegistry registry, int httpPort,
      Supervision supervision) {
    SluiceConfig config = live.get();
    Preflight.kafka(config);
    Preflight.redis(config);
    try (TopicAdmin admin = new TopicAdmin(config)) {
      // A deployment from before ready.high: created here, so a dispatcher of this version reads
      // it and a gate or relay of this version has it to write (upgrade dispatchers first).
      List<String> added = admin.createAddedAtStart();
      if (!added.isEmpty()) {
        LOG.info("created {} (new in this version, beside {})", added,
            new Topics(config.kafka().topicPrefix(), config.ladder()).ready());
      }
      Set<String> missing = admin.missing();
      if (!missing.isEmpty()) {
        throw new Preflight.Unreachable("Kafka at " + config.kafka().bootstrap()
            + " lacks Sluice's topics " + missing + ".\n  Create them with `java -jar "
            + "app/target/sluice.jar topics create --config FILE`.");
      }
    } catch (Preflight.Unreachable e) {
      throw e;
    } catch (Exception e) {
      throw new Preflight.Unreachable("could not list Kafka's topics: " + e.getMessage());
    }
    SluiceApp app = new SluiceApp(new SluiceMetrics(registry), supervision);
    try {
      app.startRoles(live, EnumSet.copyOf(roles), providers, httpPort);
    } catch (RuntimeException e) {
      app.close();
      throw e;
    }
    return app;
  }

  /**
   * Reloads the configuration from {@code file} when it changes and on SIGHUP, for as long as the
   * application runs ({@link ConfigWatcher}); outcomes are counted in
   * {@code sluice_config_reloads_total{outcome}}.
   *
   * @param loader reads and validates the file as at start-up (environment overrides included)
   */
  public SluiceApp watchConfig(Path file, Supplier<SluiceConfig> loader) throws IOException {
    ConfigWatcher watcher = new ConfigWatcher(file, live, loader, metrics::configReload).start();
    stopOrder.add(watcher);
    return this;
  }

  private void startRoles(LiveConfig live, Set<Role> roles, Map<String, Provider> providers,
      int httpPort) {
    SluiceConfig config = live.get();
    this.live = live;
    // Stopped in the reverse order of this list: dispatcher, relay, gate, then the endpoint.
    JmxExposure jmx = JmxExposure.start(metrics.registry());
    stopOrder.add(jmx);
    // Traces, when tracing.otlpEndpoint is set: closed after the roles, so their last spans go.
    StageTracer tracer = OtelTracer.start(config.tracing(), metrics.tracing());
    if (tracer instanceof AutoCloseable exporting) {
      stopOrder.add(exporting);
    }
    // Redis's cache of the operators' pauses and tenant records, seeded again from the operator
    // topic whenever Redis lost it.
    stopOrder.add(CacheKeeper.start(config));
    Map<String, Supplier<RoleStatus>> states = new LinkedHashMap<>();
    List<HealthCheck> circuits = new ArrayList<>();
    if (roles.contains(Role.GATE)) {
      AtomicReference<Gate> latest = new AtomicReference<>();
      gate = supervise("gate", () -> remember(latest, Gate.start(live, metrics, Map.of(), tracer)),
          Gate::isRunning);
      metrics.redisCircuit("gate", () -> latest.get().circuit());
      circuits.add(new CircuitHealth("gateRedisCircuit", () -> latest.get().circuit().status()));
      metrics.tenantRegistryStale(() -> latest.get().tenantRegistry().stale());
      circuits.add(new TenantRegistryHealth(() -> latest.get().tenantRegistry(), Clock.systemUTC()));
      states.put("gate", () -> gate.status(g -> {
        KafkaStreams.State s = g.streams().state();
        return s.isRunningOrRebalancing() || s == KafkaStreams.State.CREATED
            ? RoleStatus.healthy(s.name()) : RoleStatus.unhealthy(s.name());
      }));
    }
    if (roles.contains(Role.RELAY)) {
      relay = supervise("relay", () -> RelayService.start(config, metrics, tracer), RelayService::isRunning);
      states.put("relay", () -> relay.status(r -> r.isRunning()
          ? RoleStatus.healthy("RUNNING") : RoleStatus.unhealthy("STOPPED")));
    }
    if (roles.contains(Role.DISPATCHER)) {
      AtomicReference<DispatcherService> latest = new AtomicReference<>();
      dispatcher = supervise("dispatcher", () -> remember(latest, providers == null
          ? DispatcherService.start(live, metrics, tracer)
          : DispatcherService.start(live, providers, metrics, tracer)), DispatcherService::isRunning);
      metrics.redisCircuit("dispatcher", () -> latest.get().circuit());
      circuits.add(new CircuitHealth("dispatcherRedisCircuit",
          () -> latest.get().circuit().status()));
      states.put("dispatcher", () -> dispatcher.status(d -> dispatcherStatus(d.isRunning(),
          d.dispatcher().problem(), d.providerProblems(), d.dispatcher().paceFactor())));
      metrics.paceFactor(() -> latest.get().dispatcher().paceFactor());
      metrics.unacknowledgedSettlements(
          () -> latest.get().dispatcher().unacknowledgedSettlements());
      for (String provider : config.providers().keySet()) {
        // The configured rate as in force now: a reload changes it without a restart.
        DoubleSupplier configured = configuredRate(live, provider);
        metrics.providerLane(provider,
            () -> latest.get().dispatcher().buffered().getOrDefault(provider, 0),
            () -> latest.get().dispatcher().inFlight().getOrDefault(provider, 0),
            configured);
        metrics.pacedRate(provider, () -> latest.get().dispatcher().learner()
            .ratePerSecond(provider, configured.getAsDouble()));
        if (config.providers().get(provider).endpoints().totalRate().isPresent()) {
          DoubleSupplier total = totalRate(live, provider);
          metrics.totalPacedRate(provider, total::getAsDouble);
        }
        metrics.credentialReady(provider,
            () -> latest.get().providerProblems().containsKey(provider) ? 0 : 1);
        metrics.paused(provider,
            () -> latest.get().pauses().current().concerning(provider).size(),
            () -> latest.get().dispatcher().heldByPause().getOrDefault(provider, 0));
        for (String tier : config.tiers().keySet()) {
          Supplier<Optional<Waits.TierWait>> told = () -> Optional.ofNullable(
              latest.get().dispatcher().waits().get(provider)).map(w -> w.tiers().get(tier));
          metrics.tierWait(provider, tier,
              () -> told.get().filter(t -> t.oldestFirstSeenMillis() > 0)
                  .map(t -> Math.max(0, System.currentTimeMillis() - t.oldestFirstSeenMillis())
                      / 1000.0).orElse(0.0),
              () -> told.get().map(t -> t.drainMillis() < 0 ? Double.NaN
                  : t.drainMillis() / 1000.0).orElse(0.0));
        }
      }
      circuits.add(new PausesHealth(() -> latest.get().pauses().current(),
          () -> latest.get().dispatcher().heldByPause()));
      circuits.add(new LearnedLimitsHealth(() -> latest.get().dispatcher().learner(), live::get));
      if (config.providers().values().stream().anyMatch(ProviderConfig::perTenant)) {
        circuits.add(TenantRegistryHealth.ofDispatcher(
            () -> latest.get().tenants().map(TenantWatcher::view),
            Clock.systemUTC()));
      }
    }
    HangingTransactionSweeper sweeper = sweepHangingTransactions(config, roles);
    if (sweeper != null) {
      stopOrder.add(1, sweeper);
    }
    if (httpPort >= 0) {
      KafkaReachability kafka = KafkaReachability.of(config.kafka());
      stopOrder.add(0, kafka);
      // Its own connection: a PING never waits behind a role's pipelined scripts.
      RedisAccess redis = RedisAccess.open(config.redis(), "health");
      stopOrder.add(0, redis);
      // The admin API's pauses and tenant records go to the operator topic first.
      OperatorJournal.Kafka journal = OperatorJournal.open(config);
      stopOrder.add(0, journal);
      List<HealthCheck> checks = new ArrayList<>(List.of(kafka, RedisReachability.of(redis::ping)));
      // Each role's circuit: open means the onRedisDown policies decide, which /ready must say.
      checks.addAll(circuits);
      // Informational: a sweeper that cannot look or abort leaves the roles working, but an
      // operator must learn that hanging transactions would not be ended.
      checks.add(HangingTransactionsHealth.of(sweeper));
      // The backlog of every Sluice group, in /metrics whichever roles run here.
      Admin kafkaAdmin = Admin.create(config.kafka().clientProperties(Map.of(
          AdminClientConfig.CLIENT_ID_CONFIG, "sluice-ops",
          AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 10_000,
          AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000)));
      stopOrder.add(0, kafkaAdmin);
      LagWatcher lag = LagWatcher.start(config, kafkaAdmin);
      stopOrder.add(1, lag);
      lag.groups().forEach((group, topics) -> topics.forEach(topic -> metrics.gauge(
          () -> lag.lag(group, topic), "sluice_consumer_lag", "group", group, "topic", topic)));
      // Consoles poll the status each second: its Kafka parts are read once for all of them.
      StatusCache statusParts = StatusCache.shared(live::get, kafkaAdmin, Clock.systemUTC());
      AdminApi admin = new AdminApi(config.admin(), live::get, (provider, tenant) -> {
        ObjectNode status = new StatusReader(live.get(), redis.commands(), statusParts,
            Clock.systemUTC()).read(provider, tenant);
        status.set("instance", instanceStatus());
        return status;
      }, new PauseStore(redis.commands(), journal),
          new TenantRegistry(redis.commands(), journal));
      ops = OpsServer.start(config.http().bind(), httpPort, metrics.registry(),
          new Health(checks, states), admin);
      stopOrder.add(1, ops);
      LOG.info("sluice: /metrics, /ready, /live and /health on port {}", ops.port());
    }
  }

  /**
   * Starts a role under a {@link RoleSupervisor}: a role whose loop stops is closed and started
   * again with new clients, and the process exits ({@link Supervision#EXIT_ROLE_FAILED}) when that
   * happens more often than {@link RestartPolicy#DEFAULT} allows.
   */
  private <R extends AutoCloseable> RoleSupervisor<R> supervise(String role, Supplier<R> start,
      Predicate<R> running) {
    RoleSupervisor<R> supervisor = new RoleSupervisor<>(role, start, running,
        () -> metrics.roleRestarted(role), supervision);
    stopOrder.add(supervisor);
    return supervisor;
  }

  private static <R> R remember(AtomicReference<R> latest, R started) {
    latest.set(started);
    return started;
  }

  /**
   * The dispatcher role's state for {@code /ready}: STOPPED, STUCK (a settlement Kafka refuses),
   * WAITING (a provider's calls wait for an OAuth2 token: not ready, but live), or RUNNING.
   */
  static RoleStatus dispatcherStatus(boolean running, Optional<String> stuck,
      Map<String, String> providerProblems) {
    return dispatcherStatus(running, stuck, providerProblems, 1);
  }

  /**
   * The dispatcher's state; {@code pace} below 1 (it slows itself down, overloaded: see
   * docs/dispatcher.md) is said in the state, which stays healthy: an overloaded dispatcher works.
   */
  static RoleStatus dispatcherStatus(boolean running, Optional<String> stuck,
      Map<String, String> providerProblems, double pace) {
    if (!running) {
      return RoleStatus.unhealthy("STOPPED");
    }
    return stuck.map(p -> RoleStatus.unhealthy("STUCK: " + p))
        .or(() -> providerProblems.values().stream().findFirst()
            .map(p -> RoleStatus.unhealthy("WAITING: " + p)))
        .orElse(RoleStatus.healthy(pace < 1 ? "RUNNING (overloaded: every lane at "
            + Math.round(pace * 100) + "% of its rate)" : "RUNNING"));
  }

  /** The configured rate of {@code provider} in force now (NaN if a reload removed it). */
  static DoubleSupplier configuredRate(LiveConfig live, String provider) {
    return () -> {
      ProviderConfig p = live.get().providers().get(provider);
      return p == null ? Double.NaN : p.rate().perSecond();
    };
  }

  /** The {@code totalRate} of {@code provider} in force now (NaN if a reload removed it). */
  static DoubleSupplier totalRate(LiveConfig live, String provider) {
    return () -> {
      ProviderConfig p = live.get().providers().get(provider);
      return p == null || p.endpoints().totalRate().isEmpty() ? Double.NaN
          : p.endpoints().totalRate().get().perSecond();
    };
  }

  /**
   * The topics whose hanging transactions these roles end: those they read, and the receipts the
   * gate writes in its transactions for producers to read (a gate transaction a broker restart
   * leaves open there would stop every read_committed reader of the receipts at it for good;
   * ending it on the gate's own inputs does not end it on the receipts' partitions).
   */
  static List<String> sweptTopics(Set<Role> roles, Topics topics, boolean receipts) {
    List<String> read = new ArrayList<>(List.of(Topic.GROUP_METADATA_TOPIC_NAME));
    if (roles.contains(Role.GATE)) {
      read.addAll(List.of(topics.inbound(), topics.regate()));
      if (receipts) {
        read.add(topics.receipts());
      }
    }
    if (roles.contains(Role.RELAY)) {
      topics.ladder().forEach(step -> read.add(topics.delay(step)));
    }
    if (roles.contains(Role.DISPATCHER)) {
      read.addAll(topics.readyTopics());
    }
    return read;
  }

  /**
   * Aborts hanging transactions on the topics these roles read: one that no marker will ever end
   * stops the role's read_committed consumer at it for good (see HangingTransactionJudge).
   * Patience 30 s, six times the 5 s transaction timeout of Sluice's producers.
   */
  private HangingTransactionSweeper sweepHangingTransactions(SluiceConfig config, Set<Role> roles) {
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    // __consumer_offsets too: a transaction's offsets whose marker was skipped there stay
    // pending, and a read_committed consumer of the group (which asks for stable offsets) cannot
    // learn where to start: the relay waited forever on "could not read the commits" after its
    // old producer's marker to __consumer_offsets-0 was skipped (ChaosRunIT, 369 lost).
    List<String> read = sweptTopics(roles, topics, config.gate().receipts());
    if (!config.kafka().sweepHangingTransactions()) {
      LOG.warn("hanging transactions: not swept (kafka.hangingTransactions.sweep: false); a "
          + "transaction a broker restart leaves open on {} holds its partition back until an "
          + "operator ends it (kafka-transactions.sh find-hanging)", read);
      return null;
    }
    // Only Sluice's own producers' transactions are ever ended (HangingTransactionJudge): the
    // gate's, the relays' and the sweepers', by the exact shapes of their transactional ids.
    SluiceTransactionalIds ours = new SluiceTransactionalIds(config.gate().applicationId(),
        config.kafka().topicPrefix(), RelayService.GROUP_SUFFIX);
    AdminTransactionsView view = new AdminTransactionsView(Admin.create(
        config.kafka().clientProperties(Map.of(AdminClientConfig.CLIENT_ID_CONFIG,
            "sluice-hanging-transactions"))), config.kafka().clientProperties(),
        ours.sweeper());
    stopOrder.add(0, view);
    return new HangingTransactionSweeper(view, read, HANGING_PATIENCE, Clock.systemUTC(), ours,
        new HangingTransactionSweeper.Outcomes() {
          @Override
          public void ended(OpenTransaction t, long writtenAgain) {
            metrics.hangingTransactionAborted(t.partition().topic(), writtenAgain);
          }

          @Override
          public void held(OpenTransaction t) {
            metrics.hangingTransactionHeld(t.partition().topic());
          }

          @Override
          public void failed(HangingTransactionSweeper.Failure kind) {
            metrics.hangingTransactionsFailure(kind.name().toLowerCase(Locale.ROOT));
          }
        }).start(HANGING_INTERVAL);
  }

  /**
   * What only this instance knows, for {@code GET /admin/status}: its dispatcher's events buffered,
   * calls in flight, events held by a pause, the pauses as it honours them, its Redis circuit.
   */
  private ObjectNode instanceStatus() {
    ObjectMapper json = new ObjectMapper();
    ObjectNode out = json.createObjectNode();
    DispatcherService d = dispatcher();
    if (d == null) {
      out.put("dispatcher", "not running here");
      return out;
    }
    out.set("buffered", json.valueToTree(d.dispatcher().buffered()));
    out.set("inFlight", json.valueToTree(d.dispatcher().inFlight()));
    out.set("heldByPause", json.valueToTree(d.dispatcher().heldByPause()));
    out.put("pausesHonoured", d.pauses().current().all().size());
    out.put("pausesReadFailing", d.pauses().failing());
    out.put("redisCircuit", d.circuit().state().name());
    return out;
  }

  public SluiceMetrics metrics() {
    return metrics;
  }

  /** The port of /metrics and /health, or -1 when not served. */
  public int httpPort() {
    return ops == null ? -1 : ops.port();
  }

  /** The dispatcher running now; null while it is being restarted, or when not a role here. */
  public DispatcherService dispatcher() {
    return dispatcher == null ? null : dispatcher.current();
  }

  @Override
  public void close() {
    for (int i = stopOrder.size() - 1; i >= 0; i--) {
      try {
        stopOrder.get(i).close();
      } catch (Exception e) {
        LOG.warn("sluice: stopping {} failed ({})", stopOrder.get(i).getClass().getSimpleName(),
            e.toString());
      }
    }
    stopOrder.clear();
  }
}
