package io.sluice.gate;

import io.sluice.redis.DeploymentHistory;
import io.sluice.redis.RedisAccess;
import io.sluice.redis.RedisTimeClock;
import io.sluice.redis.order.RedisOrderStore;
import io.sluice.redis.RedisCircuit;
import io.sluice.redis.tenants.TenantRegistry;
import io.sluice.redis.tenants.TenantWatcher;
import io.sluice.config.GroupMembership;
import io.sluice.config.LiveConfig;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.schemas.topic.WriterStamp;
import io.sluice.gate.limiter.LettuceTokenBucketStore;
import io.sluice.gate.limiter.TokenBucketScript;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import io.sluice.schemas.trace.StageTracer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaClientSupplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.processor.internals.DefaultKafkaClientSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gate role running: one Kafka Streams instance of {@link GateTopology} with
 * {@code exactly_once_v2}, one Redis connection shared by its stream threads, one circuit breaker.
 * Instances sharing {@code gate.applicationId} split the inbound partitions between them.
 */
public final class Gate implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Gate.class);

  private final RedisAccess redis;
  private final TenantWatcher tenants;
  private final LettuceTokenBucketStore store;
  private final KafkaStreams streams;
  /** Kafka Streams' state.dir, removed on close; null when the caller named its own. */
  private final GateStateDir stateDir;
  /** Redis's clock, as the relay reads it: when an event that asked for a time is due. */
  private final RedisTimeClock redisClock;

  private Gate(RedisAccess redis, TenantWatcher tenants, LettuceTokenBucketStore store,
      KafkaStreams streams, GateStateDir stateDir, RedisTimeClock redisClock) {
    this.redisClock = redisClock;
    this.redis = redis;
    this.tenants = tenants;
    this.store = store;
    this.streams = streams;
    this.stateDir = stateDir;
  }

  /**
   * Connects to Redis, builds the topology and starts it.
   *
   * @param overrides extra Kafka Streams properties (tests lower commit intervals, for example)
   */
  public static Gate start(SluiceConfig config, GateListener listener, Map<String, Object> overrides) {
    return start(new LiveConfig(config), listener, overrides);
  }

  /**
   * {@link #start(SluiceConfig, GateListener, Map)}, following {@code live}: each event is decided
   * under the configuration in force when it is processed (tenants, tiers, quotas, rules), so a
   * reload needs no restart. A bucket keeps its level across a change of its quota: the script
   * is handed the new capacity and refill with the stored level and debt.
   */
  public static Gate start(LiveConfig live, GateListener listener, Map<String, Object> overrides) {
    return start(live, listener, overrides, StageTracer.OFF);
  }

  /** {@link #start(LiveConfig, GateListener, Map)}, each decision a span of {@code tracer}. */
  public static Gate start(LiveConfig live, GateListener listener, Map<String, Object> overrides,
      StageTracer tracer) {
    return start(live, listener, overrides, new DefaultKafkaClientSupplier(), tracer);
  }

  /**
   * {@link #start(LiveConfig, GateListener, Map)} with Kafka clients from {@code clients}: a test
   * wraps the producer to inject a fault at a chosen send (GateTaskRevivalIT).
   */
  static Gate start(LiveConfig live, GateListener listener, Map<String, Object> overrides,
      KafkaClientSupplier clients) {
    return start(live, listener, overrides, clients, StageTracer.OFF);
  }

  private static Gate start(LiveConfig live, GateListener listener, Map<String, Object> overrides,
      KafkaClientSupplier clients, StageTracer tracer) {
    SluiceConfig config = live.get();
    RedisAccess redis = RedisAccess.open(config.redis(), "gate");
    LettuceTokenBucketStore store = new LettuceTokenBucketStore(redis.commands(), TokenBucketScript.load());
    // Slots without a marker: a first use of Redis (nothing lost), or a loss no script has found
    // yet (token_bucket.lua); Kafka remembers whether this gate ran before.
    try {
      store.markSlots(DeploymentHistory.ranBefore(config)).toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
    } catch (RuntimeException e) {
      redis.close();
      throw new IllegalStateException("gate: could not set the slot markers in Redis: " + e.getMessage(), e);
    }
    // The tenant registry's records, over the file's entries, within a second of their change.
    TenantWatcher tenants = TenantWatcher.start(new TenantRegistry(redis.commands()),
        TenantWatcher.DEFAULT_CAPACITY);
    RedisTimeClock redisClock = RedisTimeClock.start(config.redis());
    KafkaStreams[] self = new KafkaStreams[1];
    // The local share is 1 / the instances in Streams metadata, which lists them only when each
    // sets application.server: a unique placeholder, unless the caller gives an endpoint.
    GateWiring wiring = new GateWiring(
        config, store, redis.circuit(),
        () -> self[0] == null ? 1.0 : GateInstances.share(self[0]),
        Clock.systemUTC(), System::nanoTime, listener, live::get, tenants, redisClock,
        new RedisSeenIds(redis.commands(), redis.circuit(), config.gate().redisTimeout()),
        new RedisOrderStore(redis.commands(), redis.circuit(), config.gate().redisTimeout()), tracer);
    Map<String, Object> named = new HashMap<>(overrides);
    named.putIfAbsent(StreamsConfig.APPLICATION_SERVER_CONFIG, GateInstances.placeholderEndpoint());
    GateStateDir stateDir = null;
    KafkaStreams streams;
    try {
      if (!named.containsKey(StreamsConfig.STATE_DIR_CONFIG)) {
        stateDir = GateStateDir.create();
        named.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.path().toString());
      }
      streams = new KafkaStreams(GateTopology.build(wiring), properties(config, named), clients);
    } catch (RuntimeException e) {
      if (stateDir != null) {
        stateDir.close();
      }
      redisClock.close();
      tenants.close();
      redis.close();
      throw e;
    }
    self[0] = streams;
    streams.setUncaughtExceptionHandler(e -> {
      LOG.error("gate: stream thread failed; replacing it", e);
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
    });
    streams.start();
    return new Gate(redis, tenants, store, streams, stateDir, redisClock);
  }

  static Properties properties(SluiceConfig config, Map<String, Object> overrides) {
    Map<String, Object> p = new HashMap<>();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.gate().applicationId());
    p.putAll(config.kafka().clientProperties());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.gate().streamThreads());
    p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
    p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
    if (!overrides.containsKey(StreamsConfig.STATE_DIR_CONFIG)) {
      p.put(StreamsConfig.STATE_DIR_CONFIG, tempStateDir()); // callers other than start
    }
    p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 5);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 1000);
    // Each task reads two partitions (inbound and regate) and has no reason to interleave them by
    // timestamp: every event is decided on its own, and a regate return is a ticket holder however
    // late it comes. With task idling on (Streams' default 0), each record processed while the
    // regate partition is empty (nearly always) costs a String.format of "Partition %s has fetched
    // lag of %d" inside PartitionGroup.readyToProcess, built even with trace logging off: a quarter
    // of the stream thread's CPU in the gate bench's profile. -1 processes what is buffered.
    p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, StreamsConfig.MAX_TASK_IDLE_MS_DISABLED);
    // The gate has no global state, so this changes nothing it runs; it takes Kafka 5.0's default
    // now, and spares an operator the WARN Streams logs at every start without it.
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
    // A SIGKILLed gate's inbound partitions move after 6 s, not 45 s (GroupMembership). Its open
    // transaction still holds read_committed readers of its outputs until the coordinator aborts it.
    GroupMembership.fastTakeover().forEach((name, value) -> p.put(StreamsConfig.consumerPrefix(name), value));
    // That abort comes after 5 s rather than Streams' 10 s: a gate commits every 100 ms, so a
    // transaction open for 5 s belongs to a dead or stuck instance (which is then fenced, and its
    // records gated again: stricter, never looser).
    p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 5000);
    // No record the gate writes may stall its partition by being too large (TooLargeOutputs): the
    // dead letter of an inbound value near the broker's limit fits (the DLQ topic takes as much),
    // and what still cannot be written is dead-lettered without its value.
    var outputs = new Topics(config.kafka().topicPrefix(), config.ladder());
    int maxRecordBytes = OutputLimits.maxRecordBytes(config.kafka());
    var tooLarge = new TooLargeOutputs(outputs.dlq(), maxRecordBytes, outputs.all());
    p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), maxRecordBytes);
    // First, each record names the transaction's writer (WriterStamp), so that the records of a
    // transaction left hanging are the ones written again before it is aborted
    // (HangingTransactionSweeper); then the size check sees the record as it will be written.
    p.put(StreamsConfig.producerPrefix(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG),
        WriterStamp.class.getName() + ","
            + TooLargeOutputInterceptor.class.getName());
    p.put(StreamsConfig.producerPrefix(TooLargeOutputs.CONFIG), tooLarge);
    p.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, TooLargeOutputHandler.class);
    p.putAll(overrides);
    Properties props = new Properties();
    props.putAll(p);
    return props;
  }

  /** The gate keeps no state stores; each instance gets its own scratch directory for Streams' locks. */
  private static String tempStateDir() {
    try {
      return Files.createTempDirectory("sluice-gate-").toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public KafkaStreams streams() {
    return streams;
  }

  /**
   * False once Kafka Streams stopped for good ({@code ERROR}, or {@code NOT_RUNNING} without a
   * close): its own threads are replaced when they fail, the client as a whole is not.
   */
  public boolean isRunning() {
    KafkaStreams.State s = streams.state();
    return s != KafkaStreams.State.ERROR && s != KafkaStreams.State.PENDING_ERROR
        && s != KafkaStreams.State.NOT_RUNNING;
  }

  /** The circuit in front of Redis, for {@code /health}. */
  public RedisCircuit circuit() {
    return redis.circuit();
  }

  /** The tenant registry as this gate follows it, for {@code /health} and {@code /metrics}. */
  public TenantWatcher.View tenantRegistry() {
    return tenants.view();
  }

  /** This instance's share of each quota under the {@code local} onRedisDown policy. */
  public double localShare() {
    return GateInstances.share(streams);
  }

  /** Redis script calls made by this instance. */
  public long redisCalls() {
    return store.calls();
  }

  /** Stops Kafka Streams, then removes its state directory if it stopped in time. */
  @Override
  public void close() {
    boolean stopped = streams.close(Duration.ofSeconds(30));
    redisClock.close();
    tenants.close();
    redis.close();
    if (stateDir != null && stopped) {
      stateDir.close(); // not while a stream thread may still write there; the next start sweeps it
    }
  }
}
