package io.sluice.app.dlq;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a topic from a time (or its beginning) to its end as it was when the scan started, with
 * {@code assign} and {@code seek}: no consumer group is joined and no offset is committed, so the
 * {@code dlq} commands can run beside the running Sluice without moving anything of it.
 *
 * <p>Bounded: records written after the scan started are not read (the end is fixed first), the
 * caller can stop it ({@code each} returns false), and it stops at {@code timeout} whatever is
 * left, saying so in its result.
 */
final class BoundedScan {
  /** How a scan ended: records read, and whether the timeout cut it short. */
  record Result(long read, boolean timedOut) {}

  private BoundedScan() {}

  /**
   * @throws IllegalStateException if the topic does not exist
   */
  static Result read(KafkaConsumer<byte[], byte[]> c, String topic, Optional<Instant> from,
      Duration timeout, Predicate<ConsumerRecord<byte[], byte[]>> each) {
    List<PartitionInfo> infos = c.partitionsFor(topic, timeout);
    if (infos == null || infos.isEmpty()) {
      throw new IllegalStateException("topic " + topic + " does not exist; run `sluice topics "
          + "create --config FILE` first");
    }
    List<TopicPartition> parts = new ArrayList<>();
    infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
    c.assign(parts);
    Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts, timeout));
    c.seekToBeginning(parts);
    if (from.isPresent()) {
      Map<TopicPartition, Long> times = new HashMap<>();
      parts.forEach(p -> times.put(p, from.get().toEpochMilli()));
      for (var e : c.offsetsForTimes(times, timeout).entrySet()) {
        OffsetAndTimestamp at = e.getValue();
        // Nothing at or after the time: the partition has nothing to read.
        c.seek(e.getKey(), at == null ? end.get(e.getKey()) : at.offset());
      }
    }
    long read = 0;
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
      while (!end.isEmpty()) {
        if (System.nanoTime() - deadline > 0) {
          return new Result(read, true);
        }
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          Long stop = end.get(new TopicPartition(r.topic(), r.partition()));
          if (stop == null || r.offset() >= stop) {
            continue;
          }
          read++;
          if (!each.test(r)) {
            return new Result(read, false);
          }
        }
        end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
      }
      return new Result(read, false);
    } finally {
      c.unsubscribe();
    }
  }
}
