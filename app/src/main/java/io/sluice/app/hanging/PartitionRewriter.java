package io.sluice.app.hanging;

import io.sluice.schemas.topic.HeaderNames;
import io.sluice.schemas.topic.WriterStamp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes the records of a hanging transaction again, so that they stay readable after it is
 * aborted ({@link HangingTransactionJudge}).
 *
 * <p>The partition is read {@code read_uncommitted} (the open transaction's records are not
 * readable otherwise) from the transaction's first offset to the partition's end, and the records
 * its producer wrote are written to the same partition, with their key, value, headers and
 * timestamp, in committed transactions of a producer of the sweeper's own: one transaction per
 * batch read, so memory and a transaction's length stay bounded however far the range reaches.
 *
 * <p>Which records its producer wrote: a Kafka consumer does not say, so Sluice's producers stamp
 * each record with their transactional id ({@link WriterStamp}, header {@code sluice-writer}), and
 * only the records stamped by the hanging transaction's producer are written again. A record
 * stamped by another writer is left alone (its own transaction's marker decides it), and so is
 * one with no stamp: every transactional producer of Sluice stamps (the gate's, the relays', the
 * sweepers'), so an unstamped record was written with no transaction (the dispatcher's outcomes,
 * retries and dead letters; a client's event on {@code inbound}) and is readable once the
 * transaction in front of it ends, however it ends. Writing it again was a second copy of a
 * record written once: a retry copied is a second call (issue 34, 4). Bounded: the range ends at
 * the partition's end when the copy starts, and a copy that reads nothing for {@code stall}
 * fails.
 */
final class PartitionRewriter implements AutoCloseable {
  private static final Duration POLL = Duration.ofMillis(500);

  private final Map<String, Object> clientProperties;
  private final String transactionalId;
  private final Duration stall;
  private KafkaProducer<byte[], byte[]> producer;

  /**
   * @param clientProperties the role's Kafka client properties (bootstrap, security)
   * @param transactionalId  the sweeper's producer's ({@link SluiceTransactionalIds#sweeper()})
   * @param stall            how long a copy may read nothing before it fails
   */
  PartitionRewriter(Map<String, Object> clientProperties, String transactionalId,
      Duration stall) {
    this.clientProperties = Map.copyOf(clientProperties);
    this.transactionalId = transactionalId;
    this.stall = stall;
  }

  /**
   * Writes the records {@code writer} wrote in {@code partition} from
   * {@code from} to {@code end} (exclusive) again and commits them: how many were written.
   * Throws when not all were committed.
   */
  long writeAgain(TopicPartition partition, long from, long end, String writer) {
    if (end <= from) {
      return 0;
    }
    KafkaProducer<byte[], byte[]> out = producer();
    long written = 0;
    try (KafkaConsumer<byte[], byte[]> in = consumer()) {
      in.assign(List.of(partition));
      in.seek(partition, from);
      long lastProgress = System.nanoTime();
      long position = from;
      while (position < end) {
        ConsumerRecords<byte[], byte[]> batch = in.poll(POLL);
        long now = in.position(partition);
        if (now > position) {
          lastProgress = System.nanoTime();
          position = now;
        } else if (System.nanoTime() - lastProgress > stall.toNanos()) {
          throw new IllegalStateException("reading " + partition + " stalled at offset "
              + position + " of " + end);
        }
        if (batch.isEmpty()) {
          continue;
        }
        out.beginTransaction();
        try {
          for (ConsumerRecord<byte[], byte[]> r : batch.records(partition)) {
            if (r.offset() >= end) {
              break;
            }
            if (!writtenBy(r, writer)) {
              continue;
            }
            out.send(new ProducerRecord<>(partition.topic(), partition.partition(),
                r.timestamp(), r.key(), r.value(), r.headers()));
            written++;
          }
          out.commitTransaction();
        } catch (RuntimeException e) {
          // Whatever state the producer is in, a fresh one (same id, which fences this one)
          // starts the next attempt clean; nothing of this copy's open transaction stays.
          closeProducer();
          throw e;
        }
      }
    }
    return written;
  }

  /** True when {@code r} names {@code writer} as its writer; a record naming none is false. */
  static boolean writtenBy(ConsumerRecord<?, ?> r, String writer) {
    Header stamp = r.headers().lastHeader(HeaderNames.WRITER);
    return stamp != null && stamp.value() != null
        && writer.equals(new String(stamp.value(), StandardCharsets.UTF_8));
  }

  private KafkaProducer<byte[], byte[]> producer() {
    if (producer == null) {
      Map<String, Object> p = new HashMap<>(clientProperties);
      p.put(ProducerConfig.CLIENT_ID_CONFIG, "sluice-hanging-transactions-writer");
      p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
      p.put(ProducerConfig.ACKS_CONFIG, "all");
      p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
      // Its copies name it: if one of its own transactions is left hanging, a sweeper writes
      // again just those.
      p.put(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, WriterStamp.class.getName());
      KafkaProducer<byte[], byte[]> created = new KafkaProducer<>(p, new ByteArraySerializer(),
          new ByteArraySerializer());
      try {
        created.initTransactions();
      } catch (KafkaException e) {
        created.close(Duration.ZERO);
        throw e;
      }
      producer = created;
    }
    return producer;
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    Map<String, Object> c = new HashMap<>(clientProperties);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "sluice-hanging-transactions-reader");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private void closeProducer() {
    if (producer != null) {
      producer.close(Duration.ZERO);
      producer = null;
    }
  }

  @Override
  public void close() {
    if (producer != null) {
      producer.close(Duration.ofSeconds(5));
      producer = null;
    }
  }
}
