package io.sluice.dispatcher.dispatch;

import io.sluice.config.GroupMembership;
import io.sluice.config.SluiceConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The Kafka clients of one dispatcher instance, configured from the Sluice config. */
public final class DispatcherClients {
  /** How long a settlement may wait to share a batch ({@code linger.ms}). */
  private static final int LINGER_MS = 10;
  /**
   * The least time the producer keeps sending a settlement before it reports it failed
   * ({@code delivery.timeout.ms}; Kafka's default is 2 minutes). A partition's next owner waits
   * this long, plus a second, for the settlement of a call its previous owner delivered before it
   * writes its own ({@link io.sluice.dispatcher.dispatch.offsets.SettlementGrace}): a
   * shorter timeout is a shorter wait after a crash. A broker away for longer has its
   * settlements sent anew by the dispatcher (each copy names what it settles). Set whatever
   * {@code kafka.properties} says: the wait depends on it.
   */
  static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(30);
  /** The producer's request timeout unless the configuration sets one (Kafka's default is 30 s). */
  private static final int REQUEST_TIMEOUT_MS = 15_000;

  private DispatcherClients() {}

  /**
   * The producer's delivery timeout: {@link #DELIVERY_TIMEOUT}, or more when the configured
   * {@code request.timeout.ms} needs it (Kafka asks for at least linger plus request timeout).
   */
  public static Duration deliveryTimeout(SluiceConfig config) {
    return Duration.ofMillis(Math.max(DELIVERY_TIMEOUT.toMillis(),
        LINGER_MS + (long) requestTimeoutMillis(config)));
  }

  private static int requestTimeoutMillis(SluiceConfig config) {
    Object set = config.kafka().clientProperties().get(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
    try {
      return set == null ? REQUEST_TIMEOUT_MS : Integer.parseInt(set.toString().trim());
    } catch (NumberFormatException e) {
      return REQUEST_TIMEOUT_MS; // Kafka refuses it when the consumer is built
    }
  }

  /**
   * Reads {@code sluice.ready} as a member of the dispatcher group: committed records only (the
   * gate writes transactionally), offsets committed by the dispatcher itself, never automatically.
   */
  public static KafkaConsumer<byte[], byte[]> consumer(SluiceConfig config, String clientId) {
    Map<String, Object> c = new HashMap<>();
    c.putAll(config.kafka().clientProperties());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, config.dispatcher().groupId());
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
    // Records fetched and not yet polled sit in the consumer, outside dispatcher.bufferBytes: keep
    // them to a quarter of it (the default fetch.max.bytes, 50 MiB, would nearly double it).
    c.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG,
        Math.max(1 << 20, config.dispatcher().bufferBytes() / 4));
    c.putAll(GroupMembership.fastTakeover()); // a killed dispatcher's partitions move within 6 s
    // Cooperative: a member joining or leaving moves only the partitions that change owner. With
    // the eager default (range) every rebalance revoked every partition of every member, and each
    // revocation hands over calls in flight (Dispatcher.handOver) and refetches the queues.
    c.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        List.of(CooperativeStickyAssignor.class.getName()));
    return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** Writes outcomes, deferrals and dead letters: acknowledged by all in-sync replicas, no dupes. */
  public static KafkaProducer<byte[], byte[]> producer(SluiceConfig config, String clientId) {
    return new KafkaProducer<>(producerSettings(config, clientId), new ByteArraySerializer(),
        new ByteArraySerializer());
  }

  /** The settings of {@link #producer}: a test's producer wrapping the dispatcher's takes them. */
  public static Map<String, Object> producerSettings(SluiceConfig config, String clientId) {
    Map<String, Object> p = new HashMap<>();
    p.putAll(config.kafka().clientProperties());
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // A settlement waits up to 10 ms to share a batch: at thousands of settlements a second the
    // producer's thread sends a request per 20 records rather than per 4 (it was a twentieth of
    // the dispatcher's CPU at 2 ms); an event counts as settled only once acknowledged, so this
    // delays nothing but the commit, which goes every 100 ms anyway.
    p.put(ProducerConfig.LINGER_MS_CONFIG, LINGER_MS);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, requestTimeoutMillis(config));
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) deliveryTimeout(config).toMillis());
    // KAFKA-15591 (fixed after the 4.3 clients): an idempotent producer with several requests in
    // flight to a partition whose leader it just learned can have its first batch refused with
    // NOT_LEADER_OR_FOLLOWER, the next appended, and the first then retried with
    // OUT_OF_ORDER_SEQUENCE_NUMBER until it times out. One request in flight per connection
    // cannot reorder; batching (linger) keeps the throughput the dispatcher needs.
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    return p;
  }
}
