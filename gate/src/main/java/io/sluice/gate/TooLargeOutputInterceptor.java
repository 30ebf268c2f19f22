package io.sluice.gate;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The gate producer's check, before each send, that the record can be written: one that cannot
 * is replaced by its dead letter without the value ({@link TooLargeOutputs}). The producer calls
 * this before it serializes and measures a record, so a record too large for it never fails and
 * never aborts the transaction.
 */
public final class TooLargeOutputInterceptor implements ProducerInterceptor<byte[], byte[]> {
  private TooLargeOutputs outputs;

  @Override
  public void configure(Map<String, ?> configs) {
    Object shared = configs.get(TooLargeOutputs.CONFIG);
    if (!(shared instanceof TooLargeOutputs o)) {
      throw new IllegalArgumentException(TooLargeOutputInterceptor.class.getSimpleName()
          + " needs the gate's " + TooLargeOutputs.class.getSimpleName() + " under " + TooLargeOutputs.CONFIG);
    }
    this.outputs = o;
    o.open(configs);
  }

  @Override
  public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
    return outputs.sendable(record);
  }

  @Override
  public void onAcknowledgement(RecordMetadata metadata, Exception exception) {}

  @Override
  public void close() {
    if (outputs != null) {
      outputs.release();
    }
  }
}
