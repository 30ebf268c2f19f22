package io.sluice.relay.it;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A real transactional {@link KafkaProducer} that can be made to die the way a killed relay
 * process does, as far as Kafka can tell: after {@link #crash()} its next commit never reaches the
 * coordinator (it throws {@link CrashingConsumer.Crash} instead, which ends the relay's loop), and
 * on close it sends nothing more (no abort), so its transaction stays open until the coordinator
 * times it out, as after {@code kill -9} between the produces and the commit.
 */
final class CrashingProducer extends KafkaProducer<byte[], byte[]> {
  private final AtomicBoolean crashed = new AtomicBoolean();
  private final AtomicInteger sentInTransaction = new AtomicInteger();
  private volatile int abandoned = -1;

  CrashingProducer(Map<String, Object> configs) {
    super(configs, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /** From now on the next commit dies. Any thread. */
  void crash() {
    crashed.set(true);
  }

  /** Records sent in the transaction the crash left open (acknowledged, never committed); -1 before. */
  int abandoned() {
    return abandoned;
  }

  @Override
  public void beginTransaction() {
    sentInTransaction.set(0);
    super.beginTransaction();
  }

  @Override
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record) {
    sentInTransaction.incrementAndGet();
    return super.send(record);
  }

  @Override
  public void commitTransaction() {
    if (crashed.get()) {
      abandoned = sentInTransaction.get();
      throw new CrashingConsumer.Crash();
    }
    super.commitTransaction();
  }

  @Override
  public void abortTransaction() {
    if (crashed.get()) {
      throw new CrashingConsumer.Crash(); // a dead process aborts nothing
    }
    super.abortTransaction();
  }

  @Override
  public void close() {
    if (crashed.get()) {
      super.close(Duration.ZERO); // forced: no abort of the open transaction is sent
    } else {
      super.close();
    }
  }
}
