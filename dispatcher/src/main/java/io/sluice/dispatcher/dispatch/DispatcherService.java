package io.sluice.dispatcher.dispatch;

import io.sluice.config.ProviderConfig;
import io.sluice.dispatcher.dispatch.offsets.AdminTopicIdentity;
import io.sluice.dispatcher.dispatch.offsets.RedisDeliveredLog;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.feedback.RedisLearnedLimitStore;
import io.sluice.dispatcher.pause.PauseStore;
import io.sluice.dispatcher.pause.PauseWatcher;
import io.sluice.dispatcher.leak.FailoverLeakyBucket;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.ConfiguredLimits;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.leak.RedisLeakyBucket;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.redis.DeploymentHistory;
import io.sluice.redis.RedisAccess;
import io.sluice.redis.order.RedisOrderStore;
import io.sluice.redis.RedisCircuit;
import io.sluice.redis.SlotMarkers;
import io.sluice.redis.operator.OperatorLog;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.redis.tenants.TenantRegistry;
import io.sluice.redis.tenants.TenantWatcher;
import io.sluice.config.RedisDownPolicy;
import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.schemas.trace.StageTracer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dispatcher role as the application runs it: HTTP providers from the configuration, the
 * leak in Redis with each provider's onRedisDown policy behind a circuit breaker, and the
 * consumer loop on its own thread.
 */
public final class DispatcherService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DispatcherService.class);

  private final Dispatcher dispatcher;
  private final Thread thread;
  private final RedisAccess redis;
  /** Stops reloads reaching this instance's dispatcher once it is closed. */
  private final Runnable unfollow;
  /** The providers this service built, and closes (their token fetchers). */
  private final Map<String, Provider> owned = new ConcurrentHashMap<>();
  private final AdminTopicIdentity identity;
  /** The operator's pauses as this instance last read them. */
  private final PauseWatcher pauses;
  /** The tenant registry's endpoints, followed when a provider has {@code endpoints: perTenant}. */
  private final Optional<TenantWatcher> tenants;
  /**
   * Tenants whose records one dispatcher keeps: 20,000 plans for 10,000 configured endpoints with
   * 1,000 busy, about 8 MB of heap at the most; beyond, the least recently used are looked up again.
   */
  static final int TENANTS_KEPT = 20_000;

  /** Writes this instance's waits for status. */
  private final ScheduledExecutorService waitsTimer = Executors.newSingleThreadScheduledExecutor(
      r -> {
        Thread t = new Thread(r, "sluice-dispatch-waits");
        t.setDaemon(true);
        return t;
      });

  private DispatcherService(Dispatcher dispatcher, RedisAccess redis, Runnable unfollow,
      AdminTopicIdentity identity, PauseWatcher pauses, Optional<TenantWatcher> tenants) {
    this.pauses = pauses;
    this.tenants = tenants;
    this.dispatcher = dispatcher;
    this.redis = redis;
    this.unfollow = unfollow;
    this.identity = identity;
    this.thread = new Thread(dispatcher, "sluice-dispatcher");
    // What this instance's events wait for, told to status once a second (WaitsStore).
    WaitsStore waits = new WaitsStore(redis.commands());
    String instance = "dispatcher-" + UUID.randomUUID().toString().substring(0, 8);
    this.waitsTimer.scheduleWithFixedDelay(() -> {
      try {
        waits.put(instance, dispatcher.waits());
      } catch (RuntimeException e) {
        // Redis away: status shows no waits for this instance until it is back.
      }
    }, 1, 1, TimeUnit.SECONDS);
  }

  /** Starts with one {@link HttpProvider} per configured provider. */
  public static DispatcherService start(SluiceConfig config, DispatchListener listener) {
    return start(new LiveConfig(config), listener);
  }

  /** {@link #start(SluiceConfig, DispatchListener)}, following {@code live}'s reloads. */
  public static DispatcherService start(LiveConfig live, DispatchListener listener) {
    return start(live, listener, StageTracer.OFF);
  }

  /** {@link #start(LiveConfig, DispatchListener)}, each event's wait, calls and outcome spans of {@code tracer}. */
  public static DispatcherService start(LiveConfig live, DispatchListener listener, StageTracer tracer) {
    SluiceConfig config = live.get();
    Map<String, Provider> providers = new HashMap<>();
    config.providers().forEach((name, p) -> providers.put(name,
        HttpProvider.of(name, p, config.secrets())));
    DispatcherService service = start(live, providers, listener, tracer);
    service.owned.putAll(providers);
    return service;
  }

  /** Starts with the given providers (an in-process job handler, for example). */
  public static DispatcherService start(SluiceConfig config, Map<String, Provider> providers,
      DispatchListener listener) {
    return start(new LiveConfig(config), providers, listener);
  }

  /**
   * Starts with the given providers, following {@code live}: a reload reaches the lanes' limits
   * on their next claim, and tier weights and the record check at once ({@link Dispatcher#reload}).
   */
  public static DispatcherService start(LiveConfig live, Map<String, Provider> providers,
      DispatchListener listener) {
    return start(live, providers, listener, StageTracer.OFF);
  }

  /** {@link #start(LiveConfig, Map, DispatchListener)}, each event's wait, calls and outcome spans of {@code tracer}. */
  public static DispatcherService start(LiveConfig live, Map<String, Provider> providers,
      DispatchListener listener, StageTracer tracer) {
    SluiceConfig config = live.get();
    RedisAccess redis = RedisAccess.open(config.redis(), "dispatcher");
    markSlots(redis, DeploymentHistory.ranBefore(config));
    String clientId = "sluice-dispatcher-" + UUID.randomUUID().toString().substring(0, 8);
    KafkaConsumer<byte[], byte[]> consumer = DispatcherClients.consumer(config, clientId);
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    // Both ready topics' partitions: the instance owns some of each (InstanceShare counts both).
    int readyPartitions = 0;
    for (String topic : topics.readyTopics()) {
      readyPartitions += consumer.partitionsFor(topic, Duration.ofSeconds(10)).size();
    }
    readyPartitions = Math.max(1, readyPartitions);
    LeakConfig leakConfig = LeakConfig.of(config.dispatcher());
    Map<String, RedisDownPolicy> policies = new HashMap<>();
    config.providers().forEach((name, p) -> policies.put(name, p.onRedisDown()));
    InstanceShare instances = new InstanceShare(readyPartitions);
    FailoverLeakyBucket leak = new FailoverLeakyBucket(
        new RedisLeakyBucket(redis.commands(), leakConfig),
        new LocalLeakyBucket(leakConfig, 1), policies, redis.circuit(),
        // Instances sharing the rate, estimated from the share of partitions this one owns.
        instances::instances);
    // Limits learned from the providers' answers, shared through Redis, lower every lane's limits.
    LimitLearner learner = new LimitLearner(new RedisLearnedLimitStore(redis.commands()),
        System::currentTimeMillis, () -> ThreadLocalRandom.current().nextDouble(),
        listener);
    learner.preload(config.providers().keySet(), Duration.ofSeconds(2));
    // The operator's pauses: the operator topic's (read before the first event) and Redis's.
    PauseWatcher pauses = PauseWatcher.start(new PauseStore(redis.commands()), OperatorLog.follow(config));
    // The tenants' endpoints set in the registry, followed within a second: only when some
    // provider has endpoints per tenant (else no poll at all).
    Optional<TenantWatcher> tenants = config.providers().values().stream()
        .anyMatch(ProviderConfig::perTenant)
        ? Optional.of(TenantWatcher.start(new TenantRegistry(redis.commands()), TENANTS_KEPT))
        : Optional.empty();
    // The delivered log's entries belong to one cluster and one incarnation of sluice.ready.
    AdminTopicIdentity identity = AdminTopicIdentity.create(config, clientId + "-ids",
        Duration.ofSeconds(2));
    Dispatcher dispatcher = new Dispatcher(DispatcherWiring.of(config, consumer,
            DispatcherClients.producer(config, clientId), providers, leak, Clock.systemUTC(), listener)
        .withDeliveredLog(new RedisDeliveredLog(redis.commands(), config.dispatcher().groupId(), identity))
        .withLearner(learner)
        .withLimitSources(name -> new ConfiguredLimits(live, name))
        .withPauses(pauses::current)
        .withTenants(tenants.<TenantLookup>map(t -> t).orElse(TenantLookup.NONE))
        .withInstances(instances)
        .withTracer(tracer)
        // Ordering keys' turns: the same Redis, the same patience as the gate's calls to it.
        .withOrders(new RedisOrderStore(redis.commands(), redis.circuit(), config.gate().redisTimeout())));
    Runnable unfollow = live.onChange(dispatcher::reload);
    DispatcherService service = new DispatcherService(dispatcher, redis, unfollow, identity,
        pauses, tenants);
    service.thread.start();
    return service;
  }

  /**
   * Gives every Redis Cluster slot its loss marker before the first claim ({@link SlotMarkers}),
   * as a starting gate does: on a Redis no role used yet, a claim would otherwise read a missing
   * marker as lost data and hold its provider's windows for their length. Slots are marked
   * "intact" only when Kafka shows no history of this deployment ({@link DeploymentHistory});
   * after one, missing markers mean Redis lost its data. Redis down at start: the first claim that
   * reaches it marks its slot itself, as lost (stricter, never looser).
   */
  private static void markSlots(RedisAccess redis, boolean ranBefore) {
    try {
      SlotMarkers.mark(redis.commands(), ranBefore).toCompletableFuture()
          .orTimeout(30, TimeUnit.SECONDS).join();
    } catch (RuntimeException e) {
      LOG.warn("could not mark Redis's slots at start ({}); a provider window found without its "
          + "marker is held as if Redis had lost it", e.toString());
    }
  }

  public Dispatcher dispatcher() {
    return dispatcher;
  }

  /**
   * Each provider that cannot be called now (its OAuth2 token missing), and why: while any is
   * listed the dispatcher is not ready. Empty for providers given from outside.
   */
  public Map<String, String> providerProblems() {
    Map<String, String> problems = new TreeMap<>();
    owned.forEach((name, p) -> {
      if (p instanceof HttpProvider http) {
        http.problem().ifPresent(problem -> problems.put(name, problem));
      }
    });
    return problems;
  }

  /** The pauses as this instance last read them ({@code /health}, {@code sluice_dispatch_paused}). */
  public PauseWatcher pauses() {
    return pauses;
  }

  /**
   * The tenant registry as this instance follows it for tenants' endpoints ({@code /health});
   * empty when no provider has {@code endpoints: perTenant}.
   */
  public Optional<TenantWatcher> tenants() {
    return tenants;
  }

  /** The circuit in front of the leak in Redis, for {@code /health}. */
  public RedisCircuit circuit() {
    return redis.circuit();
  }


  /** True while the consumer loop's thread runs (false once it stopped, or died). */
  public boolean isRunning() {
    return thread.isAlive();
  }

  @Override
  public void close() {
    waitsTimer.shutdownNow();
    unfollow.run();
    dispatcher.close();
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    owned.values().forEach(Provider::close);
    pauses.close();
    tenants.ifPresent(TenantWatcher::close);
    identity.close();
    redis.close();
  }
}
