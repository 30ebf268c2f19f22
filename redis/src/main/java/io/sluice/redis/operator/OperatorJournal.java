package io.sluice.redis.operator;

import io.sluice.config.SluiceConfig;
import io.sluice.redis.operator.OperatorEntry.Key;
import io.sluice.schemas.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Where an operator's change is written first: the operator topic, the source of truth. A write
 * completes only once every in-sync replica has it ({@code acks=all}, idempotent), and only then
 * does the writer change the cache in Redis; a write Kafka refuses changes nothing.
 */
public interface OperatorJournal {
  /** Keeps no record: for tests and tools that write the cache alone. */
  OperatorJournal NONE = (key, entry) -> CompletableFuture.completedFuture(null);

  /** Writes {@code entry} under {@code key}, or a tombstone when empty; completes when acknowledged. */
  CompletionStage<Void> write(Key key, Optional<OperatorEntry> entry);

  /** The operator topic of {@code config}'s cluster. */
  static Kafka open(SluiceConfig config) {
    Map<String, Object> props = config.kafka().clientProperties(Map.of(
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000,
        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 15_000,
        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
        ProducerConfig.LINGER_MS_CONFIG, 0,
        // KAFKA-15591: idempotent, several in flight, a topic created a moment ago: stuck 120 s.
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1));
    return new Kafka(new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer()),
        new Topics(config.kafka().topicPrefix(), config.ladder()).operator());
  }

  /** The journal on Kafka. */
  final class Kafka implements OperatorJournal, AutoCloseable {
    private final Producer<byte[], byte[]> producer;
    private final String topic;

    public Kafka(Producer<byte[], byte[]> producer, String topic) {
      this.producer = producer;
      this.topic = topic;
    }

    @Override
    public CompletionStage<Void> write(Key key, Optional<OperatorEntry> entry) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      try {
        producer.send(new ProducerRecord<>(topic, key.text().getBytes(StandardCharsets.UTF_8),
            entry.map(OperatorEntry::value).orElse(null)), (metadata, error) -> {
              if (error != null) {
                done.completeExceptionally(new IllegalStateException("Kafka did not take the change of "
                    + key.text() + " to " + topic + ": " + error.getMessage(), error));
              } else {
                done.complete(null);
              }
            });
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
      }
      return done;
    }

    @Override
    public void close() {
      producer.close(Duration.ofSeconds(5));
    }
  }
}
