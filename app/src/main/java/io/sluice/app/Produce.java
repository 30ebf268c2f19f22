package io.sluice.app;

import io.sluice.config.KafkaConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.schemas.serde.Json;
import io.sluice.schemas.topic.Topics;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes JSON lines to {@code sluice.inbound}, one record per non-blank line, keyed by the
 * event's tenant. A line is sent as it is, even when it is not a valid event: the gate is where
 * events are judged, and it dead-letters a bad one with a reason; refusing it here would lose it
 * silently. Such a line is sent without a key.
 */
public final class Produce {
  /** How many lines were sent, and how many of them had no readable tenant. */
  public record Result(long sent, long unkeyed) {}

  private Produce() {}

  public static Result lines(String bootstrap, Topics topics, BufferedReader in)
      throws IOException, InterruptedException, ExecutionException {
    return lines(new KafkaConfig(bootstrap, ""), topics, in);
  }

  public static Result lines(KafkaConfig kafka, Topics topics, BufferedReader in)
      throws IOException, InterruptedException, ExecutionException {
    return lines(kafka, topics, in, UnaryOperator.identity());
  }

  /**
   * {@link #lines(KafkaConfig, Topics, BufferedReader)}, each line as {@code asked} makes it (the
   * time, key and class the command's options ask for: {@link AskedTime}, {@link AskedKey},
   * {@link AskedPriority}).
   */
  public static Result lines(KafkaConfig kafka, Topics topics, BufferedReader in,
      UnaryOperator<byte[]> asked)
      throws IOException, InterruptedException, ExecutionException {
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.clientProperties(Map.of(
        ProducerConfig.ACKS_CONFIG, "all",
        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.LINGER_MS_CONFIG, 5,
        // KAFKA-15591: see DispatcherClients.producer.
        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)),
        new ByteArraySerializer(), new ByteArraySerializer())) {
      List<Future<RecordMetadata>> acks = new ArrayList<>();
      long sent = 0;
      long unkeyed = 0;
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        byte[] value = asked.apply(line.getBytes(StandardCharsets.UTF_8));
        byte[] key = tenantOf(value);
        if (key == null) {
          unkeyed++;
        }
        acks.add(producer.send(new ProducerRecord<>(topics.inbound(), key, value)));
        sent++;
        if (acks.size() >= 10_000) {
          for (Future<RecordMetadata> ack : acks) {
            ack.get();
          }
          acks.clear();
        }
      }
      for (Future<RecordMetadata> ack : acks) {
        ack.get();
      }
      return new Result(sent, unkeyed);
    }
  }

  /** The tenant field as key bytes, or null when the line is not an object with a string tenant. */
  static byte[] tenantOf(byte[] value) {
    try {
      JsonNode node = Json.mapper().readTree(value);
      JsonNode tenant = node == null ? null : node.get("tenant");
      return tenant != null && tenant.isTextual()
          ? tenant.textValue().getBytes(StandardCharsets.UTF_8) : null;
    } catch (IOException e) {
      return null;
    }
  }
}
