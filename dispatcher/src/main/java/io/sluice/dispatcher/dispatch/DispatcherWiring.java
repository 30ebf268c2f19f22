package io.sluice.dispatcher.dispatch;

import io.sluice.config.SluiceConfig;
import io.sluice.dispatcher.dispatch.offsets.DeliveredLog;
import io.sluice.dispatcher.feedback.LearningLimitSource;
import io.sluice.dispatcher.feedback.LimitLearner;
import io.sluice.dispatcher.leak.LeakyBucket;
import io.sluice.dispatcher.leak.LimitSource;
import io.sluice.dispatcher.leak.ProviderLimits;
import io.sluice.dispatcher.pause.PauseRules;
import io.sluice.dispatcher.provider.Provider;
import io.sluice.redis.order.OrderStore;
import io.sluice.redis.tenants.TenantLookup;
import io.sluice.schemas.trace.StageTracer;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;

/**
 * Everything a {@link Dispatcher} needs from outside, so a test can hand it fakes and the
 * application real clients. {@link #of} gives the defaults (no delivered log, limits learned in
 * this process only, the configured limits); the {@code with} methods replace one part each.
 *
 * @param config       the configuration the dispatcher starts from (a reload reaches it through
 *                     {@link Dispatcher#reload})
 * @param consumer     reads {@code sluice.ready}; the dispatcher's thread owns it
 * @param producer     writes outcomes, deferrals and dead letters
 * @param providers    one per configured provider, by name; closed when the dispatcher closes
 * @param leak         the shared leak (Redis), or a local one
 * @param deliveredLog where calls delivered beyond the commit are kept for the next owner
 * @param learner      learns the providers' limits from their answers (shared through Redis in
 *                     the application); each lane enforces {@code limitSources}' limits lowered
 *                     to the learned ones ({@link LearningLimitSource})
 * @param clock        wall clock, for timestamps and deadlines
 * @param listener     metrics and events
 * @param limitSources the configured limits of each provider, by name, asked on every claim
 * @param pauses       the operators' pauses in force, asked on every turn of the consumer loop (a
 *                     {@link io.sluice.dispatcher.pause.PauseWatcher}'s cache in the application)
 * @param tenants      the tenants' registry records, whose endpoints come before the file's (a
 *                     {@link io.sluice.redis.tenants.TenantWatcher} in the application; by default
 *                     none, every endpoint is the file's)
 * @param nanoTime     the monotonic clock of every wait, slot and pause ({@code System::nanoTime}
 *                     by default; a test's fake clock)
 * @param random       uniform in [0, 1): the jitter of retries' backoff
 * @param instances    told how many partitions this instance owns, at every assignment (a
 *                     leak's fallback divides the rate by the instances it estimates)
 * @param orders       ordering keys' turns ({@code RedisOrderStore} in the application; by
 *                     default none: an ordered event finds no state and is called)
 */
public record DispatcherWiring(
    SluiceConfig config,
    Consumer<byte[], byte[]> consumer,
    Producer<byte[], byte[]> producer,
    Map<String, Provider> providers,
    LeakyBucket leak,
    DeliveredLog deliveredLog,
    LimitLearner learner,
    Clock clock,
    DispatchListener listener,
    Function<String, LimitSource> limitSources,
    Supplier<PauseRules> pauses,
    TenantLookup tenants,
    LongSupplier nanoTime,
    DoubleSupplier random,
    InstanceShare instances,
    OrderStore orders,
    StageTracer tracer) {

  /** The parts every dispatcher needs; the rest by default (see the class). */
  public static DispatcherWiring of(SluiceConfig config, Consumer<byte[], byte[]> consumer,
      Producer<byte[], byte[]> producer, Map<String, Provider> providers, LeakyBucket leak,
      Clock clock, DispatchListener listener) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, DeliveredLog.NONE,
        LimitLearner.local(listener), clock, listener,
        name -> LimitSource.fixed(new ProviderLimits(config.providers().get(name).limits())),
        () -> PauseRules.NONE, TenantLookup.NONE, System::nanoTime,
        () -> ThreadLocalRandom.current().nextDouble(), new InstanceShare(1), OrderStore.NONE, StageTracer.OFF);
  }

  /** This wiring with {@code log} keeping the calls delivered beyond the commit. */
  public DispatcherWiring withDeliveredLog(DeliveredLog log) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, log, learner, clock,
        listener, limitSources, pauses, tenants, nanoTime, random, instances, orders, tracer);
  }

  /** This wiring with {@code shared} learning the providers' limits. */
  public DispatcherWiring withLearner(LimitLearner shared) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, deliveredLog, shared,
        clock, listener, limitSources, pauses, tenants, nanoTime, random, instances, orders, tracer);
  }

  /** This wiring with {@code sources} giving each provider's configured limits. */
  public DispatcherWiring withLimitSources(Function<String, LimitSource> sources) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, deliveredLog, learner,
        clock, listener, sources, pauses, tenants, nanoTime, random, instances, orders, tracer);
  }

  /** This wiring with {@code rules} giving the pauses in force. */
  public DispatcherWiring withPauses(Supplier<PauseRules> rules) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, deliveredLog, learner,
        clock, listener, limitSources, rules, tenants, nanoTime, random, instances, orders, tracer);
  }

  /** This wiring with {@code nanoTime} as its monotonic clock and {@code random} as its jitter. */
  public DispatcherWiring withTime(LongSupplier nanoTime, DoubleSupplier random) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, deliveredLog, learner,
        clock, listener, limitSources, pauses, tenants, nanoTime, random, instances, orders, tracer);
  }

  /** This wiring telling {@code share} how many partitions this instance owns. */
  public DispatcherWiring withInstances(InstanceShare share) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, deliveredLog, learner,
        clock, listener, limitSources, pauses, tenants, nanoTime, random, share, orders, tracer);
  }

  /** This wiring with {@code store} keeping ordering keys' turns. */
  public DispatcherWiring withOrders(OrderStore store) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, deliveredLog, learner,
        clock, listener, limitSources, pauses, tenants, nanoTime, random, instances, store, tracer);
  }

  /** This wiring with each event's wait, calls and outcome spans of {@code tracer}. */
  public DispatcherWiring withTracer(StageTracer tracer) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, deliveredLog, learner,
        clock, listener, limitSources, pauses, tenants, nanoTime, random, instances, orders, tracer);
  }

  /** This wiring with {@code registry} giving the tenants' registry records (their endpoints). */
  public DispatcherWiring withTenants(TenantLookup registry) {
    return new DispatcherWiring(config, consumer, producer, providers, leak, deliveredLog, learner,
        clock, listener, limitSources, pauses, registry, nanoTime, random, instances, orders, tracer);
  }
}
