package io.sluice.relay;

import io.sluice.redis.RedisTimeClock;
import io.sluice.config.GroupMembership;
import io.sluice.config.SluiceConfig;
import io.sluice.schemas.topic.Topics;
import io.sluice.schemas.trace.StageTracer;
import io.sluice.schemas.topic.WriterStamp;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The relay role running on its own thread, with its clients configured from the Sluice config. */
public final class RelayService implements AutoCloseable {
  /** Consumer group of every relay instance: they share the delay partitions. */
  public static final String GROUP_SUFFIX = "relay";
  /** How long a relay's transaction may stay open before its coordinator aborts it. */
  static final int TRANSACTION_TIMEOUT_MS = 5000;

  private final Relay relay;
  private final RedisTimeClock clock;
  private final Thread thread;

  private RelayService(Relay relay, RedisTimeClock clock) {
    this.relay = relay;
    this.clock = clock;
    this.thread = new Thread(relay, "sluice-relay");
  }

  /**
   * Starts the relay, judging not-befores on a lower bound of Redis's clock (the gate stamps them
   * with Redis TIME): a relay host whose clock is ahead never releases early. One sample of Redis
   * TIME is taken before the relay starts; if Redis does not answer, nothing is released until it
   * does (the local clock serves the relay's own timers meanwhile; see {@link RedisTimeClock}).
   */
  public static RelayService start(SluiceConfig config, RelayListener listener) {
    return start(config, listener, RedisTimeClock.start(config.redis()));
  }

  /** As {@link #start(SluiceConfig, RelayListener)}, with this host's clock {@code local} (tests: a skewed one). */
  public static RelayService start(SluiceConfig config, RelayListener listener, Clock local) {
    return start(config, listener, RedisTimeClock.start(config.redis(), local, RedisTimeClock.DEFAULT_RESAMPLE));
  }

  /** As {@link #start(SluiceConfig, RelayListener)}, each release and hop a span of {@code tracer}. */
  public static RelayService start(SluiceConfig config, RelayListener listener, StageTracer tracer) {
    return start(config, listener, RedisTimeClock.start(config.redis()), tracer);
  }

  private static RelayService start(SluiceConfig config, RelayListener listener, RedisTimeClock clock) {
    return start(config, listener, clock, StageTracer.OFF);
  }

  private static RelayService start(SluiceConfig config, RelayListener listener, RedisTimeClock clock,
      StageTracer tracer) {
    try {
      Relay relay = new Relay(
          new KafkaConsumer<>(consumerConfig(config), new ByteArrayDeserializer(), new ByteArrayDeserializer()),
          new KafkaProducer<>(producerConfig(config), new ByteArraySerializer(), new ByteArraySerializer()),
          new Topics(config.kafka().topicPrefix(), config.ladder()),
          clock, clock::onRedisTime, listener, tracer);
      RelayService service = new RelayService(relay, clock);
      service.thread.start();
      return service;
    } catch (RuntimeException e) {
      clock.close();
      throw e;
    }
  }

  private static Map<String, Object> consumerConfig(SluiceConfig config) {
    Map<String, Object> c = new HashMap<>();
    c.putAll(config.kafka().clientProperties());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, config.kafka().topicPrefix() + GROUP_SUFFIX);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1000);
    // Fast takeover: a killed relay's partitions move after 6 s, not the 45 s default.
    c.putAll(GroupMembership.fastTakeover());
    // The relay reads ahead and releases from memory, so a fetch's timing matters only for records
    // newly written (placed by the gate, hopped) and for a partition resumed after its read-ahead
    // filled. The consumer keeps one fetch in flight per broker: while the other partitions are
    // idle, it waits at the broker for data up to fetch.max.wait.ms. At the default 500 ms a lone
    // record came out up to ~570 ms late (RelayIT); at 50 ms an idle relay sends 20 small fetches a
    // second instead of 2, and reads within tens of ms.
    c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    return c;
  }

  private static Map<String, Object> producerConfig(SluiceConfig config) {
    Map<String, Object> p = new HashMap<>();
    p.putAll(config.kafka().clientProperties());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // Each round is a transaction (Relay). One id per relay instance: zombies are fenced by the
    // group metadata sent with the offsets (KIP-447), not by the id, so two instances never share
    // one. A SIGKILLed relay's open transaction holds read_committed readers of the partitions it
    // wrote (ready among them) until the coordinator aborts it: after 5 s, as for the gate, since a
    // round lasts milliseconds. A round stuck longer is aborted and relayed again, never lost.
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG,
        config.kafka().topicPrefix() + GROUP_SUFFIX + "-" + UUID.randomUUID());
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MS);
    // Each record names its writer (the gate's do too): see WriterStamp.
    p.put(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, WriterStamp.class.getName());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    // KAFKA-15591 (fixed on the broker after 4.3): right after a partition is created, an
    // idempotent producer with several requests in flight can have its first batch refused with
    // NOT_LEADER_OR_FOLLOWER, the next appended, and the first retried with
    // OUT_OF_ORDER_SEQUENCE_NUMBER until delivery.timeout.ms: the relay would rewind and lose two
    // minutes. One request in flight cannot reorder, and costs the relay nothing: each round
    // flushes and waits for its sends anyway.
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    return p;
  }

  /** True while the relay's loop runs (false once it stopped, or died). */
  public boolean isRunning() {
    return thread.isAlive();
  }

  @Override
  public void close() {
    relay.close();
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    clock.close();
  }
}
