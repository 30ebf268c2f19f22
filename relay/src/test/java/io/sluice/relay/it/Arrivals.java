package io.sluice.relay.it;

import io.sluice.testkit.Await;
import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.HeaderValues;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Watches a topic the relay returns records to, from its beginning, on a thread of its own, and
 * notes for every record when this process received it. Reads {@code read_committed}, as the
 * gate and the dispatcher do.
 *
 * <p>Each record's key is its id and its {@code sluice-not-before} header (copied by the relay)
 * says when it was due, so an {@link Arrival} knows by itself whether it came early or how late.
 */
final class Arrivals implements AutoCloseable {

  /**
   * One record as received.
   *
   * @param appendedAt the record's timestamp; the broker's append time when the topic is created
   *                   with {@code message.timestamp.type=LogAppendTime} (see {@link #timestampType})
   * @param receivedAt this process's wall clock when {@code poll} returned the record
   */
  record Arrival(String id, int partition, long notBefore, long appendedAt, TimestampType timestampType, long receivedAt) {
    long lateMillis() {
      return receivedAt - notBefore;
    }
  }

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private final List<Arrival> arrivals = new ArrayList<>();
  private volatile boolean running = true;
  private volatile RuntimeException failure;

  private Arrivals(KafkaConsumer<byte[], byte[]> consumer, String topic) {
    this.consumer = consumer;
    this.thread = new Thread(this::readLoop, "arrivals-" + topic);
  }

  /** Starts reading all {@code partitions} of {@code topic} from the beginning (no consumer group). */
  static Arrivals watch(String bootstrap, String topic, int partitions) {
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ConsumerConfig.CLIENT_ID_CONFIG, "arrivals-" + UUID.randomUUID(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    c.assign(IntStream.range(0, partitions).mapToObj(p -> new TopicPartition(topic, p)).toList());
    Arrivals a = new Arrivals(c, topic);
    a.thread.start();
    return a;
  }

  private void readLoop() {
    try {
      while (running) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        long receivedAt = System.currentTimeMillis();
        if (records.isEmpty()) {
          continue;
        }
        List<Arrival> batch = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          batch.add(new Arrival(new String(r.key(), StandardCharsets.UTF_8), r.partition(),
              HeaderValues.lastLong(r.headers(), HeaderNames.NOT_BEFORE).orElse(Long.MIN_VALUE),
              r.timestamp(), r.timestampType(), receivedAt));
        }
        synchronized (arrivals) {
          arrivals.addAll(batch);
          arrivals.notifyAll();
        }
      }
    } catch (WakeupException e) {
      // close() asked us to stop
    } catch (RuntimeException e) {
      failure = e;
      synchronized (arrivals) {
        arrivals.notifyAll();
      }
    } finally {
      consumer.close();
    }
  }

  /** Everything received so far. */
  List<Arrival> snapshot() {
    synchronized (arrivals) {
      return List.copyOf(arrivals);
    }
  }

  /** Waits until {@code done} holds for everything received, or fails when the deadline passes first. */
  List<Arrival> awaitUntil(Predicate<List<Arrival>> done, Duration deadline, String what) throws InterruptedException {
    return Await.until(what, deadline, () -> {
      if (failure != null) {
        throw new AssertionError("the reader failed", failure);
      }
      return snapshot();
    }, done);
  }

  /** Waits until every one of {@code ids} has arrived at least once. */
  List<Arrival> awaitIds(Collection<String> ids, Duration deadline) throws InterruptedException {
    Set<String> wanted = Set.copyOf(ids);
    return awaitUntil(all -> all.stream().map(Arrival::id).filter(wanted::contains).distinct().count() == wanted.size(),
        deadline, "all " + ids.size() + " ids arrived");
  }

  /** Arrivals by id; an id that arrived twice has two entries. */
  static Map<String, List<Arrival>> idsOf(List<Arrival> all) {
    Map<String, List<Arrival>> byId = new HashMap<>();
    for (Arrival a : all) {
      byId.computeIfAbsent(a.id(), k -> new ArrayList<>()).add(a);
    }
    return byId;
  }

  static long distinctIds(List<Arrival> all) {
    return all.stream().map(Arrival::id).distinct().count();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    consumer.wakeup();
    thread.join(10_000);
  }
}
