package io.sluice.testkit;

import io.sluice.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Plain clients for integration tests: a producer, and a read_committed reader with a deadline. */
public final class KafkaClients {
  private KafkaClients() {}

  /**
   * One request in flight: right after topic creation an idempotent producer with several can have
   * a batch refused with NOT_LEADER_OR_FOLLOWER, the next appended, and the first retried with
   * OUT_OF_ORDER_SEQUENCE_NUMBER until it times out (KAFKA-15591; seen in GateIT).
   */
  public static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    return new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.LINGER_MS_CONFIG, 2,
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1,
        ProducerConfig.ACKS_CONFIG, "all"),
        new ByteArraySerializer(), new ByteArraySerializer());
  }

  public static KafkaConsumer<byte[], byte[]> reader(String bootstrap, List<String> topics) {
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.GROUP_ID_CONFIG, "reader-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    c.subscribe(topics);
    return c;
  }

  /**
   * Reads committed records of {@code topics} until {@code done} holds for everything read so far,
   * or fails when the deadline passes first.
   */
  public static List<ConsumerRecord<byte[], byte[]>> readUntil(
      String bootstrap, List<String> topics, Predicate<List<ConsumerRecord<byte[], byte[]>>> done, Duration deadline) {
    List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = reader(bootstrap, topics)) {
      // Observed: how many records were read (a record list is too long to describe).
      Await.untilRead("the records of " + topics + " to be complete", deadline, () -> {
        if (!done.test(all)) {
          c.poll(Duration.ofMillis(200)).forEach(all::add);
        }
        return all.size();
      }, n -> done.test(all));
    }
    return all;
  }
}
