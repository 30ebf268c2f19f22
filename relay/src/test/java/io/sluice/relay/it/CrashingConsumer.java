package io.sluice.relay.it;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A real {@link KafkaConsumer} that can be made to die the way a killed relay process does, as far
 * as Kafka can tell: after {@link #crash()} it never commits again (the commit that would cover
 * records whose produce was just acknowledged throws {@link Crash}, which ends the relay's loop),
 * and on close it does not leave the group, so the coordinator only notices when the session
 * times out, as after {@code kill -9}.
 *
 * <p>What it does not model: a real crash can also stop the relay between sending and the
 * acknowledgement. For the guarantee under test that is the same case (produced, not committed),
 * only with fewer duplicates; crashing at the commit makes sure the window is hit every time.
 */
final class CrashingConsumer extends KafkaConsumer<byte[], byte[]> {
  /** Thrown where the process would have died. */
  static final class Crash extends RuntimeException {
    Crash() {
      super("simulated crash: the relay died before committing");
    }
  }

  private final AtomicBoolean crashed = new AtomicBoolean();

  CrashingConsumer(Map<String, Object> configs) {
    super(configs, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /** From now on every commit fails and close keeps the member in the group. Any thread. */
  void crash() {
    crashed.set(true);
  }

  @Override
  public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
    dieIfCrashed();
    super.commitSync(offsets);
  }

  @Override
  public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
    dieIfCrashed();
    super.commitSync(offsets, timeout);
  }

  @Override
  public void close() {
    if (crashed.get()) {
      super.close(CloseOptions.groupMembershipOperation(GroupMembershipOperation.REMAIN_IN_GROUP));
    } else {
      super.close();
    }
  }

  private void dieIfCrashed() {
    if (crashed.get()) {
      throw new Crash();
    }
  }
}
