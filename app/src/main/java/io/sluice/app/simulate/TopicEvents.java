package io.sluice.app.simulate;

import io.sluice.config.KafkaConfig;
import io.sluice.schemas.validation.EventValidator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A time range of the inbound topic as a simulation's arrivals: each record's value is the event
 * and its timestamp its arrival, as the gate reads them. Every partition is sought by time
 * ({@code offsetsForTimes}) to the first record at or after {@code from}, read up to its end when
 * the read began, in no consumer group and {@code read_committed}; a record at or after {@code to}
 * ends its partition's part. The partitions are merged by timestamp (the one with the earliest
 * next record goes first), so arrivals come in time order across them; within a partition they
 * come in offset order, and one stamped earlier than the one before is taken as arriving then, as
 * the gate would read it.
 *
 * <p>Bounded: {@code maxRecords} read in all (the rest is left and {@link #bounded} says so), at
 * most {@link #BUFFERED} records held per partition (a partition with that many waiting is
 * paused), and a broker that gives nothing for {@code stall} while records are still due stops
 * the read with {@link RecordedEvents.BadInput}.
 */
public final class TopicEvents implements Arrivals {
  /** Records held per partition before it is paused: the merge's memory. */
  static final int BUFFERED = 10_000;

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final EventValidator validator = new EventValidator();
  private final long toMillis;
  private final long maxRecords;
  private final Duration stall;
  /** Per partition still to read from: its records read and not yet handed over. */
  private final Map<TopicPartition, ArrayDeque<ConsumerRecord<byte[], byte[]>>> waiting = new HashMap<>();
  /** Per partition: the offset its part ends before (its end when the read began). */
  private final Map<TopicPartition, Long> ends = new HashMap<>();
  private long read;
  private boolean bounded;

  private TopicEvents(KafkaConsumer<byte[], byte[]> consumer, long toMillis, long maxRecords, Duration stall) {
    this.consumer = consumer;
    this.toMillis = toMillis;
    this.maxRecords = maxRecords;
    this.stall = stall;
  }

  /**
   * @param topic the inbound topic ({@code <prefix>inbound})
   * @param from  the first arrival read
   * @param to    arrivals at or after it are not read
   * @param stall longest wait for a record (and for each metadata call) before the read is given up
   */
  public static TopicEvents open(KafkaConfig kafka, String topic, Instant from, Instant to, long maxRecords,
      Duration stall) {
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(kafka.clientProperties(Map.of(
        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-simulate-" + UUID.randomUUID(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000)),
        new ByteArrayDeserializer(), new ByteArrayDeserializer());
    TopicEvents events = new TopicEvents(c, to.toEpochMilli(), maxRecords, stall);
    try {
      events.seek(topic, from.toEpochMilli());
      return events;
    } catch (KafkaException | RecordedEvents.BadInput e) {
      c.close(Duration.ZERO);
      throw e instanceof RecordedEvents.BadInput bad ? bad
          : new RecordedEvents.BadInput("cannot read " + topic + ": " + e.getMessage());
    }
  }

  private void seek(String topic, long fromMillis) {
    List<PartitionInfo> infos = consumer.partitionsFor(topic, stall);
    if (infos == null || infos.isEmpty()) {
      throw new RecordedEvents.BadInput("topic " + topic + " does not exist (or has no partition)");
    }
    List<TopicPartition> parts = new ArrayList<>();
    infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
    consumer.assign(parts);
    Map<TopicPartition, Long> end = consumer.endOffsets(parts, stall);
    Map<TopicPartition, Long> at = new HashMap<>();
    parts.forEach(p -> at.put(p, fromMillis));
    Map<TopicPartition, OffsetAndTimestamp> start = consumer.offsetsForTimes(at, stall);
    for (TopicPartition p : parts) {
      OffsetAndTimestamp o = start.get(p);
      if (o != null && o.offset() < end.get(p)) {
        consumer.seek(p, o.offset());
        waiting.put(p, new ArrayDeque<>());
        ends.put(p, end.get(p));
      }
    }
    consumer.pause(parts);
    consumer.resume(waiting.keySet());
  }

  @Override
  public boolean next(Sink sink) {
    if (read >= maxRecords) {
      bounded |= !waiting.isEmpty();
      return false;
    }
    fill();
    TopicPartition first = null;
    long firstAt = Long.MAX_VALUE;
    for (Map.Entry<TopicPartition, ArrayDeque<ConsumerRecord<byte[], byte[]>>> e : waiting.entrySet()) {
      long at = e.getValue().peekFirst().timestamp();
      if (at < firstAt) {
        firstAt = at;
        first = e.getKey();
      }
    }
    if (first == null) {
      return false;
    }
    ArrayDeque<ConsumerRecord<byte[], byte[]>> q = waiting.get(first);
    ConsumerRecord<byte[], byte[]> r = q.pollFirst();
    if (q.isEmpty()) {
      consumer.resume(List.of(first));
      // Its last record read: the partition is done when its end was reached.
      if (consumer.position(first) >= ends.get(first)) {
        waiting.remove(first);
      }
    }
    read++;
    byte[] value = r.value();
    sink.arrive(r.timestamp(), validator.validateLeavingPayload(value), value == null ? 0 : value.length);
    return true;
  }

  /** Polls until every partition still to read has a record waiting (or is done). */
  private void fill() {
    long deadline = System.nanoTime() + stall.toNanos();
    while (waiting.values().stream().anyMatch(ArrayDeque::isEmpty)) {
      if (System.nanoTime() - deadline > 0) {
        throw new RecordedEvents.BadInput("no record from the broker for " + stall.toSeconds()
            + " s while " + waiting.size() + " partitions of the range were still to read");
      }
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        TopicPartition p = new TopicPartition(r.topic(), r.partition());
        ArrayDeque<ConsumerRecord<byte[], byte[]>> q = waiting.get(p);
        if (q == null || r.offset() >= ends.get(p)) {
          continue; // past its part's end (or a partition done): not in the range
        }
        if (r.timestamp() >= toMillis) {
          ends.put(p, r.offset()); // its part ends here
        } else {
          q.addLast(r);
        }
        if (q.size() >= BUFFERED) {
          consumer.pause(List.of(p));
        }
      }
      // A partition with nothing waiting whose position reached its part's end is done.
      waiting.entrySet().removeIf(e -> e.getValue().isEmpty() && consumer.position(e.getKey()) >= ends.get(e.getKey()));
    }
  }

  @Override
  public long linesRead() {
    return read;
  }

  @Override
  public boolean bounded() {
    return bounded;
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
