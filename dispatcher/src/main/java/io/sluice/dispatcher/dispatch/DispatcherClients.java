package io.sluice.dispatcher.dispatch;

import io.sluice.config.GroupMembership;
import io.sluice.config.SluiceConfig;
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
  private DispatcherClients() {}

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
    Map<String, Object> p = new HashMap<>();
    p.putAll(config.kafka().clientProperties());
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // A settlement waits up to 10 ms to share a batch: at thousands of settlements a second the
    // producer's thread sends a request per 20 records rather than per 4 (it was a twentieth of
    // the dispatcher's CPU at 2 ms); an event counts as settled only once acknowledged, so this
    // delays nothing but the commit, which goes every 100 ms anyway.
    p.put(ProducerConfig.LINGER_MS_CONFIG, 10);
    // KAFKA-15591 (fixed after the 4.3 clients): an idempotent producer with several requests in
    // flight to a partition whose leader it just learned can have its first batch refused with
    // NOT_LEADER_OR_FOLLOWER, the next appended, and the first then retried with
    // OUT_OF_ORDER_SEQUENCE_NUMBER until it times out. One request in flight per connection
    // cannot reorder; batching (linger) keeps the throughput the dispatcher needs.
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }
}
