package io.sluice.dispatcher.dispatch;

import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.feedback.RedisLearnedLimitStore;
import io.sluice.dispatcher.leak.FailoverLeakyBucket;
import io.sluice.dispatcher.leak.LeakConfig;
import io.sluice.dispatcher.leak.ConfiguredLimits;
import io.sluice.dispatcher.leak.LocalLeakyBucket;
import io.sluice.dispatcher.leak.RedisLeakyBucket;
import io.sluice.dispatcher.provider.HttpProvider;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.redis.RedisAccess;
import io.sluice.redis.RedisCircuit;
import io.sluice.schemas.config.RedisDownPolicy;
import io.sluice.schemas.config.LiveConfig;
import io.sluice.schemas.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The dispatcher role as the application runs it: HTTP providers from the configuration, the
 * leak in Redis with each provider's onRedisDown policy behind a circuit breaker, and the
 * consumer loop on its own thread.
 */
public final class DispatcherService implements AutoCloseable {
  private final Dispatcher dispatcher;
  private final Thread thread;
  private final RedisAccess redis;
  private final AdminTopicIdentity identity;

  private DispatcherService(Dispatcher dispatcher, RedisAccess redis, AdminTopicIdentity identity) {
    this.dispatcher = dispatcher;
    this.redis = redis;
    this.identity = identity;
    this.thread = new Thread(dispatcher, "sluice-dispatcher");
  }

  /** Starts with one {@link HttpProvider} per configured provider. */
  public static DispatcherService start(SluiceConfig config, DispatchListener listener) {
    return start(new LiveConfig(config), listener);
  }

  /** {@link #start(SluiceConfig, DispatchListener)}, following {@code live}'s reloads. */
  public static DispatcherService start(LiveConfig live, DispatchListener listener) {
    SluiceConfig config = live.get();
    Map<String, Provider> providers = new HashMap<>();
    config.providers().forEach((name, p) ->
        providers.put(name, new HttpProvider(p, HttpProvider.defaultClient(p.timeout()))));
    return start(live, providers, listener);
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
    SluiceConfig config = live.get();
    RedisAccess redis = RedisAccess.open(config.redis(), "dispatcher");
    String clientId = "sluice-dispatcher-" + UUID.randomUUID().toString().substring(0, 8);
    KafkaConsumer<byte[], byte[]> consumer = DispatcherClients.consumer(config, clientId);
    Topics topics = new Topics(config.kafka().topicPrefix(), config.ladder());
    int readyPartitions = Math.max(1, consumer.partitionsFor(topics.ready(),
        Duration.ofSeconds(10)).size());
    LeakConfig leakConfig = LeakConfig.of(config.dispatcher());
    Map<String, RedisDownPolicy> policies = new HashMap<>();
    config.providers().forEach((name, p) -> policies.put(name, p.onRedisDown()));
    Dispatcher[] self = new Dispatcher[1];
    FailoverLeakyBucket leak = new FailoverLeakyBucket(
        new RedisLeakyBucket(redis.commands(), leakConfig),
        new LocalLeakyBucket(leakConfig, 1), policies, redis.circuit(),
        // Instances sharing the rate, estimated from the share of partitions this one owns.
        () -> {
          int mine = self[0] == null ? 0 : self[0].assignedPartitions();
          return mine == 0 ? 1 : (int) Math.ceil(readyPartitions / (double) mine);
        });
    // Limits learned from the providers' answers, shared through Redis, lower every lane's limits.
    LimitLearner learner = new LimitLearner(new RedisLearnedLimitStore(redis.commands()),
        System::currentTimeMillis, () -> java.util.concurrent.ThreadLocalRandom.current().nextDouble(),
        listener);
    learner.preload(config.providers().keySet(), Duration.ofSeconds(2));
    // The delivered log's entries belong to one cluster and one incarnation of sluice.ready.
    AdminTopicIdentity identity = AdminTopicIdentity.create(config, clientId + "-ids",
        Duration.ofSeconds(2));
    Dispatcher dispatcher = new Dispatcher(config, consumer,
        DispatcherClients.producer(config, clientId), providers, leak,
        new RedisDeliveredLog(redis.commands(), config.dispatcher().groupId(), identity), learner,
        Clock.systemUTC(), listener,
        name -> new ConfiguredLimits(live, name));
    live.onChange(dispatcher::reload);
    self[0] = dispatcher;
    DispatcherService service = new DispatcherService(dispatcher, redis, identity);
    service.thread.start();
    return service;
  }

  public Dispatcher dispatcher() {
    return dispatcher;
  }

  /** The circuit in front of the leak in Redis, for {@code /health}. */
  public RedisCircuit circuit() {
    return redis.circuit();
  }


  @Override
  public void close() {
    dispatcher.close();
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    identity.close();
    redis.close();
  }
}
